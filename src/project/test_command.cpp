// Running a project's test command on a scratch copy of a built tree at the work path,
// natively or with the project's programs replaced by their traced builds.
#include "rootline/error.h"
#include "rootline/process.h"
#include "rootline/project.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rootline {

namespace {

// Whether this machine lets us give a test its own PID and mount namespaces (so $$ and
// the pids a test prints are the same in both versions' runs, and /tmp is private).
bool namespacesWork() {
  static const bool works = [] {
    ProcessSpec spec;
    spec.argv = {
        "/usr/bin/unshare", "--pid",   "--fork", "--mount",
        "--mount-proc",     "/bin/sh", "-c",     "mount -t tmpfs rootline-tmp /tmp && test $$ = 1"};
    spec.timeoutSeconds = 10;
    if (access(spec.argv[0].c_str(), X_OK) != 0)
      return false;
    return runProcess(spec).exitedWith(0);
  }();
  return works;
}

void copyScratch(const fs::path &from, const fs::path &to) {
  std::error_code ec;
  fs::remove_all(to, ec);
  fs::create_directories(to);
  ProcessSpec spec;
  spec.argv = {"/bin/cp", "-a", "--reflink=auto", from.string() + "/.", to.string()};
  ProcessResult r = runProcess(spec);
  if (!r.exitedWith(0))
    throw Error("cannot copy the built tree '" + from.string() + "' to '" + to.string() + "'");
}

} // namespace

TestCommandRun runTestCommand(const BuiltProject &project, const TestCommand &test,
                              const std::vector<std::pair<std::string, fs::path>> &traced,
                              const fs::path &traceDir) {
  TestCommandRun out;
  out.traceDir = traceDir;
  WorkPathLock lock;
  fs::path work = projectWorkPath();
  copyScratch(project.home, work);
  for (const auto &[rel, exe] : traced) {
    fs::path at = work / rel;
    std::error_code ec;
    fs::remove(at, ec);
    fs::copy_file(exe, at, fs::copy_options::overwrite_existing);
    fs::permissions(at, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  }
  fs::path tmp = work.parent_path() / "tmp";
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp);
  // Traces are written beside the work path (the test's /tmp is a fresh tmpfs, which
  // would hide a trace directory under /tmp), then moved to `traceDir`.
  fs::path writing = work.parent_path() / "traces";
  if (!traced.empty()) {
    fs::remove_all(writing, ec);
    fs::create_directories(writing);
  }
  ProcessSpec spec;
  spec.workDir = work.string();
  spec.timeoutSeconds = test.timeoutSeconds;
  spec.termGraceSeconds = 2; // traced programs flush their traces on SIGTERM
  spec.noAddressRandomization = true;
  if (!traced.empty()) {
    spec.extraEnv["ROOTLINE_TRACE_DIR"] = writing.string();
    spec.extraEnv["ROOTLINE_MAX_TRACE_BYTES"] = std::to_string(1ull << 30);
  }
  // A fresh tmpfs on /tmp would hide the work path if it lies under /tmp.
  fs::path rel = work.lexically_relative("/tmp");
  bool workUnderTmp = !rel.empty() && *rel.begin() != "..";
  if (namespacesWork()) {
    // pid 1 of its own namespace, /tmp a fresh tmpfs: the same pids and no leftovers
    // from an earlier run, in both versions' runs.
    std::string privateTmp =
        workUnderTmp ? "export TMPDIR=\"$2\"" : "mount -t tmpfs rootline-tmp /tmp";
    spec.argv = {
        "/usr/bin/unshare", "--pid",      "--fork",    "--mount",
        "--mount-proc",     "/bin/sh",    "-c",        privateTmp + " && exec /bin/sh -c \"$1\"",
        "rootline-test",    test.command, tmp.string()};
    if (workUnderTmp)
      out.isolationNote =
          "the work path " + work.string() +
          " is under /tmp, so the test got a private TMPDIR instead of its own /tmp";
  } else {
    spec.argv = {"/bin/sh", "-c", test.command};
    spec.extraEnv["TMPDIR"] = tmp.string();
    out.isolationNote = "this machine gives no PID and mount namespaces: the test ran with a "
                        "private TMPDIR only, and pids it prints may differ between runs";
  }
  // A program executed is a file read: with its access time set to 0 first, the
  // kernel (relatime) stamps it anew, which tells which programs the test ran.
  std::vector<std::string> watched;
  if (traced.empty())
    for (const auto &prog : project.programs) {
      struct timespec times[2] = {{0, 0}, {0, UTIME_OMIT}};
      if (utimensat(AT_FDCWD, (work / prog.path).c_str(), times, 0) == 0)
        watched.push_back(prog.path);
    }
  out.result = runProcess(spec);
  out.stdoutAsExpected = !test.expectedStdout || out.result.out == *test.expectedStdout;
  if (!watched.empty()) {
    std::vector<std::string> ran;
    for (const auto &path : watched) {
      struct stat st;
      if (stat((work / path).c_str(), &st) == 0 && st.st_atim.tv_sec != 0)
        ran.push_back(path);
    }
    // Nothing stamped: the filesystem may not keep access times; say nothing.
    if (!ran.empty())
      out.programsRun = ran;
  }
  fs::remove_all(work, ec);
  if (!traced.empty()) {
    fs::remove_all(traceDir, ec);
    fs::create_directories(traceDir.parent_path());
    fs::rename(writing, traceDir, ec);
    if (ec) { // another filesystem
      fs::copy(writing, traceDir, fs::copy_options::recursive);
      fs::remove_all(writing, ec);
    }
    out.processes = processTraces(traceDir);
  }
  return out;
}

} // namespace rootline
