// Running a project's test command on a scratch copy of a built tree at the work path,
// natively or with the project's programs replaced by their traced builds.
#include "project/substitute/substitute_list.h"
#include "rootline/error.h"
#include "rootline/fs.h"
#include "rootline/process.h"
#include "rootline/project.h"

#include <cstdlib>
#include <exception>
#include <map>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rootline {

namespace {

using substitute::fieldsOf;
using substitute::hex;
using substitute::unhex;

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

// `exe` copied to `at` in the scratch tree, in place of the program there. Both files are
// opened close-on-exec: a process that another thread starts meanwhile must not inherit
// the copy open for writing, or running it fails with "Text file busy".
void putExecutable(const fs::path &exe, const fs::path &at) {
  std::error_code ec;
  fs::remove(at, ec);
  int in = open(exe.c_str(), O_RDONLY | O_CLOEXEC);
  int out = open(at.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  bool copied = in >= 0 && out >= 0 && fchmod(out, 0755) == 0; // whatever the umask
  char buf[1 << 16];
  for (ssize_t got; copied && (got = read(in, buf, sizeof buf)) != 0;)
    copied = got > 0 && write(out, buf, static_cast<size_t>(got)) == got;
  if (in >= 0)
    close(in);
  if (out >= 0 && close(out) != 0)
    copied = false;
  if (!copied)
    throw Error("cannot copy '" + exe.string() + "' to '" + at.string() + "'");
}

// Puts rootline-substitute in place of each program of `sub` in the tree at `tree` and
// writes its list (the format rootline_substitute.cpp reads) to `list`. `seen` is where
// the test's processes see that tree (the work path), which /proc/self/exe reads. Returns,
// for each line of the list, the entry of `sub.asOld` it holds (npos for a program line).
std::vector<size_t> placeSubstitute(const ProcessSubstitution &sub, const fs::path &tree,
                                    const fs::path &seen, const fs::path &list,
                                    std::map<std::string, std::string> &selves) {
  std::vector<size_t> lines;
  fs::path program = substituteProgramPath();
  std::string text;
  for (const auto &[rel, exes] : sub.programs) {
    fs::path at = tree / rel;
    putExecutable(program, at);
    std::string self =
        (fs::canonical(seen) / fs::canonical(at).lexically_relative(fs::canonical(tree)))
            .lexically_normal()
            .string();
    selves[rel] = self;
    text += "program " + hex(self) + " " + hex(exes.oldExecutable.string()) + " " +
            hex(exes.newExecutable.string()) + "\n";
    lines.push_back(std::string::npos);
  }
  for (size_t i = 0; i < sub.asOld.size(); ++i) {
    const ProcessSubstitution::Process &p = sub.asOld[i];
    auto it = selves.find(p.program);
    if (it == selves.end())
      continue;
    lines.push_back(i);
    std::string args;
    for (const std::string &a : p.args)
      args += a + '\0';
    text += "old " + hex(it->second) + " " + hex(p.cwd) + " " + hex(args) + "\n";
  }
  writeFileAtomic(list, text);
  return lines;
}

// Whether a test's mount namespace can also show another directory at the work path
// (a bind mount): then two runs go at once, each with its own copy seen at that path.
bool bindMountsWork() {
  static const bool works = [] {
    if (!namespacesWork())
      return false;
    ScopedWorkDir t("bind-probe");
    fs::create_directories(t.path / "from");
    fs::create_directories(t.path / "at");
    writeFileAtomic(t.path / "from" / "probe", "");
    ProcessSpec spec;
    spec.argv = {"/usr/bin/unshare",
                 "--mount",
                 "/bin/sh",
                 "-c",
                 "mount --bind \"$1\" \"$2\" && test -e \"$2/probe\"",
                 "rootline-probe",
                 (t.path / "from").string(),
                 (t.path / "at").string()};
    spec.timeoutSeconds = 10;
    return runProcess(spec).exitedWith(0);
  }();
  return works;
}

// Where one run's files go. Unbound: the tree at the work path itself, its temporary
// directory, traces and substitution list beside it. Bound: the tree in a directory of
// its own, bind-mounted at the work path inside the run's mount namespace, so that
// another run can go at the same time, each seeing its own tree at the same path.
struct RunPlace {
  fs::path tree, side;
  bool bound = false;
};

RunPlace placeOf(const fs::path &work, bool bound, const std::string &tag) {
  if (!bound)
    return {work, work.parent_path(), false};
  fs::path side = work.parent_path() / ("run-" + tag);
  return {side / "tree", side, true};
}

TestCommandRun runAt(const BuiltProject &project, const TestCommand &test,
                     const std::vector<std::pair<std::string, fs::path>> &traced,
                     const fs::path &traceDir, const ProcessSubstitution *substitution,
                     const RunPlace &place) {
  TestCommandRun out;
  out.traceDir = traceDir;
  fs::path work = projectWorkPath();
  std::error_code ec;
  if (place.bound) {
    fs::remove_all(place.side, ec);
    fs::create_directories(work); // the mount point: an empty directory
  }
  copyScratch(project.home, place.tree);
  for (const auto &[rel, exe] : traced) {
    putExecutable(exe, place.tree / rel);
  }
  fs::path tmp = place.side / "tmp";
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp);
  // Traces are written beside the tree (the test's /tmp is a fresh tmpfs, which would
  // hide a trace directory under /tmp), then moved to `traceDir`.
  fs::path writing = place.side / "traces";
  if (!traced.empty()) {
    fs::remove_all(writing, ec);
    fs::create_directories(writing);
  }
  ProcessSpec spec;
  fs::path list = place.side / "substitute.list";
  std::vector<size_t> listLines;
  std::map<std::string, std::string> selves; // a program's path in the tree -> as the kernel
  if (substitution && traced.empty()) {
    std::error_code gone;
    fs::remove(list.string() + ".used", gone);
    listLines = placeSubstitute(*substitution, place.tree, work, list, selves);
    spec.extraEnv["ROOTLINE_SUBSTITUTE"] = list.string();
  }
  spec.workDir = place.bound ? place.side.string() : work.string();
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
    // Bound: the run's own tree at the work path, and the test starts there.
    std::string bind = place.bound ? "mount --bind \"$3\" \"$4\" && cd \"$4\" && " : "";
    spec.argv = {"/usr/bin/unshare",
                 "--pid",
                 "--fork",
                 "--mount",
                 "--mount-proc",
                 "/bin/sh",
                 "-c",
                 bind + privateTmp + " && exec /bin/sh -c \"$1\"",
                 "rootline-test",
                 test.command,
                 tmp.string(),
                 place.tree.string(),
                 work.string()};
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
      if (utimensat(AT_FDCWD, (place.tree / prog.path).c_str(), times, 0) == 0)
        watched.push_back(prog.path);
    }
  out.result = runProcess(spec);
  out.stdoutAsExpected = !test.expectedStdout || out.result.out == *test.expectedStdout;
  if (!watched.empty()) {
    std::vector<std::string> ran;
    for (const auto &path : watched) {
      struct stat st;
      if (stat((place.tree / path).c_str(), &st) == 0 && st.st_atim.tv_sec != 0)
        ran.push_back(path);
    }
    // Nothing stamped: the filesystem may not keep access times; say nothing.
    if (!ran.empty())
      out.programsRun = ran;
  }
  if (!listLines.empty()) { // which listed processes ran, by the lines they matched
    std::string used =
        fs::exists(list.string() + ".used", ec) ? readFile(list.string() + ".used") : std::string();
    std::map<std::string, std::string> programBySelf;
    for (const auto &[rel, self] : selves)
      programBySelf[self] = rel;
    for (size_t start = 0; start < used.size();) {
      size_t end = used.find('\n', start);
      if (end == std::string::npos)
        end = used.size();
      std::vector<std::string> f = fieldsOf(used.substr(start, end - start));
      start = end + 1;
      if (f.size() == 2 && f[0] == "old") {
        size_t line = std::strtoull(f[1].c_str(), nullptr, 10);
        if (line >= 1 && line <= listLines.size() && listLines[line - 1] != std::string::npos)
          out.substitutedRan.insert(listLines[line - 1]);
      } else if (f.size() == 4 && f[0] == "new") {
        ProcessSubstitution::Process p;
        p.program = programBySelf[unhex(f[1])];
        p.cwd = unhex(f[2]);
        std::string args = unhex(f[3]);
        for (size_t at = 0; at < args.size();) {
          size_t nul = args.find('\0', at);
          p.args.push_back(args.substr(at, nul - at));
          at = nul == std::string::npos ? args.size() : nul + 1;
        }
        out.ranAsNew.push_back(std::move(p));
      }
    }
    fs::remove(list, ec);
    fs::remove(list.string() + ".used", ec);
  }
  fs::remove_all(place.tree, ec);
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
  if (place.bound)
    fs::remove_all(place.side, ec);
  return out;
}

} // namespace

fs::path substituteProgramPath() {
  if (const char *w = getenv("ROOTLINE_SUBSTITUTE_PROGRAM"); w && *w)
    return w;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path &candidate : {self.parent_path() / "rootline-substitute",
                                    self.parent_path().parent_path() / "rootline-substitute"})
    if (std::error_code missing; !ec && fs::is_regular_file(candidate, missing))
      return candidate;
  throw Error("rootline-substitute is not installed beside rootline", ExitInternal);
}

TestCommandRun runTestCommand(const BuiltProject &project, const TestCommand &test,
                              const std::vector<std::pair<std::string, fs::path>> &traced,
                              const fs::path &traceDir, const ProcessSubstitution *substitution) {
  WorkPathLock lock;
  return runAt(project, test, traced, traceDir, substitution,
               placeOf(projectWorkPath(), bindMountsWork(), "0"));
}

bool testRunsGoAtOnce() { return bindMountsWork(); }

std::pair<TestCommandRun, TestCommandRun> runTestCommandOnBoth(const TestRunOf &a,
                                                               const TestRunOf &b) {
  WorkPathLock lock;
  bool bound = bindMountsWork();
  fs::path work = projectWorkPath();
  auto run = [&](const TestRunOf &r, const std::string &tag) {
    return runAt(r.project, r.test, r.traced, r.traceDir, nullptr, placeOf(work, bound, tag));
  };
  if (!bound) // one tree at the work path at a time
    return {run(a, "a"), run(b, "b")};
  TestCommandRun first;
  std::exception_ptr failed;
  std::thread other([&] {
    try {
      first = run(a, "a");
    } catch (...) {
      failed = std::current_exception();
    }
  });
  TestCommandRun second;
  try {
    second = run(b, "b");
  } catch (...) {
    other.join();
    throw;
  }
  other.join();
  if (failed)
    std::rethrow_exception(failed);
  return {std::move(first), std::move(second)};
}

} // namespace rootline
