#include "rootline/process.h"

#include "rootline/error.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sstream>
#include <string_view>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace rootline {

std::string signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGFPE:
    return "SIGFPE";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGPIPE:
    return "SIGPIPE";
  case SIGTRAP:
    return "SIGTRAP";
  default:
    return "SIG" + std::to_string(sig);
  }
}

std::string ProcessResult::outcome() const {
  if (timedOut)
    return "timeout";
  if (outputLimited)
    return "output limit";
  if (signal)
    return "signal " + signalName(signal);
  return "exit " + std::to_string(exitCode);
}

namespace {

void closeFd(int &fd) {
  if (fd >= 0)
    ::close(fd);
  fd = -1;
}

// What the child needs, made before it starts: the child shares this process's memory
// until it executes the program, so nothing may be built there.
struct ChildPlan {
  std::vector<char *> argv;
  std::vector<std::string> envText;
  std::vector<char *> envp; // empty: the parent's environment
  const char *program = nullptr;
  const char *stdinPath = "/dev/null";
  const char *workDir = nullptr;
};

ChildPlan childPlan(const ProcessSpec &spec) {
  ChildPlan plan;
  for (const auto &a : spec.argv)
    plan.argv.push_back(const_cast<char *>(a.c_str()));
  plan.argv.push_back(nullptr);
  plan.program = spec.program.empty() ? spec.argv[0].c_str() : spec.program.c_str();
  if (spec.stdinFile)
    plan.stdinPath = spec.stdinFile->c_str();
  if (!spec.workDir.empty())
    plan.workDir = spec.workDir.c_str();
  if (!spec.extraEnv.empty()) {
    for (char **e = environ; e && *e; ++e) {
      std::string_view entry(*e);
      std::string_view name = entry.substr(0, entry.find('='));
      if (!spec.extraEnv.count(std::string(name)))
        plan.envText.emplace_back(entry);
    }
    for (const auto &[k, v] : spec.extraEnv)
      plan.envText.push_back(k + "=" + v);
    for (auto &e : plan.envText)
      plan.envp.push_back(e.data());
    plan.envp.push_back(nullptr);
  }
  return plan;
}

// Starts the child with posix_spawn (a vfork-style clone): fork() would copy the page
// tables of this process, which holds traces and modules of a gigabyte and more, and make
// every page it writes afterwards fault once. The child gets its own process group (a
// timeout kills the whole tree), stdin from the plan, stdout and stderr into the pipes,
// and the plan's working directory. Returns posix_spawn's error (0 when it started).
int spawnChild(const ChildPlan &plan, bool noAddressRandomization, int outFd, int errFd,
               pid_t &pid) {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawn_file_actions_init(&actions);
  // In this order, as the shell does it: stdin is named relative to our directory.
  posix_spawn_file_actions_addopen(&actions, 0, plan.stdinPath, O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, outFd, 1);
  posix_spawn_file_actions_adddup2(&actions, errFd, 2);
  if (plan.workDir)
    posix_spawn_file_actions_addchdir_np(&actions, plan.workDir);
  // Fixed addresses: a program whose behaviour depends on where things are mapped (an
  // out-of-range read, a printed pointer) behaves the same on every run.
  // Otherwise randomized, as a shell runs programs, even under a parent that turned it
  // off (the flag is inherited across exec): a test run by rootline run by a test.
  // The flag is this thread's and the child inherits it; it is put back after.
  int before = personality(0xffffffff);
  int wanted = before == -1             ? -1
               : noAddressRandomization ? (before | ADDR_NO_RANDOMIZE)
                                        : (before & ~ADDR_NO_RANDOMIZE);
  if (wanted != before)
    personality(static_cast<unsigned long>(wanted));
  int err = posix_spawn(&pid, plan.program, &actions, &attr, plan.argv.data(),
                        plan.envp.empty() ? environ : plan.envp.data());
  if (wanted != before)
    personality(static_cast<unsigned long>(before));
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return err;
}

} // namespace

ProcessResult runProcess(const ProcessSpec &spec) {
  if (spec.argv.empty())
    throw Error("internal: empty argv", ExitInternal);
  if (spec.stdinFile && ::access(spec.stdinFile->c_str(), R_OK) != 0)
    throw Error("cannot read stdin file '" + *spec.stdinFile + "'");
  ChildPlan plan = childPlan(spec);
  int outPipe[2], errPipe[2];
  if (pipe2(outPipe, O_CLOEXEC) != 0 || pipe2(errPipe, O_CLOEXEC) != 0)
    throw Error(std::string("cannot create pipe: ") + strerror(errno), ExitInternal);

  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  pid_t pid = -1;
  int spawnError = spawnChild(plan, spec.noAddressRandomization, outPipe[1], errPipe[1], pid);
  ::close(outPipe[1]);
  ::close(errPipe[1]);
  if (spawnError != 0) {
    ::close(outPipe[0]);
    ::close(errPipe[0]);
    if (spawnError == EAGAIN || spawnError == ENOMEM)
      throw Error(std::string("cannot start a process: ") + strerror(spawnError), ExitInternal);
    if (::access(plan.program, X_OK) != 0)
      throw Error("cannot run '" + spec.argv[0] + "'");
    // It could not be executed (not a program the kernel runs): what a shell reports.
    ProcessResult failed;
    failed.exitCode = 127;
    failed.err = "cannot execute '" + spec.argv[0] + "': " + strerror(spawnError) + "\n";
    failed.seconds = elapsed();
    return failed;
  }

  ProcessResult result;
  // Ends the child's process group at the timeout: SIGTERM first when it gets a grace
  // period (the tracer's runtime flushes its trace), then SIGKILL.
  auto stopAtTimeout = [&] {
    result.timedOut = true;
    if (spec.termGraceSeconds > 0) {
      kill(-pid, SIGTERM);
      auto deadline =
          std::chrono::steady_clock::now() + std::chrono::duration<double>(spec.termGraceSeconds);
      int st;
      while (std::chrono::steady_clock::now() < deadline && waitpid(pid, &st, WNOHANG) == 0)
        usleep(10000);
    }
    kill(-pid, SIGKILL);
  };
  int fds[2] = {outPipe[0], errPipe[0]};
  std::string *sinks[2] = {&result.out, &result.err};
  char buf[65536];
  while (fds[0] >= 0 || fds[1] >= 0) {
    pollfd pfd[2];
    nfds_t n = 0;
    int idx[2];
    for (int i = 0; i < 2; ++i)
      if (fds[i] >= 0) {
        pfd[n] = {fds[i], POLLIN, 0};
        idx[n++] = i;
      }
    int waitMs = -1;
    if (spec.timeoutSeconds > 0) {
      double left = spec.timeoutSeconds - elapsed();
      if (left <= 0) {
        stopAtTimeout();
        break;
      }
      waitMs = static_cast<int>(left * 1000) + 1;
    }
    int r = poll(pfd, n, waitMs);
    if (r < 0 && errno == EINTR)
      continue;
    for (nfds_t k = 0; k < n; ++k) {
      if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      ssize_t got = ::read(pfd[k].fd, buf, sizeof buf);
      if (got > 0)
        sinks[idx[k]]->append(buf, static_cast<size_t>(got));
      else if (got == 0 || errno != EINTR)
        closeFd(fds[idx[k]]);
    }
    if (spec.maxOutputBytes && result.out.size() + result.err.size() > spec.maxOutputBytes) {
      result.outputLimited = true;
      kill(-pid, SIGKILL);
      break;
    }
  }
  closeFd(fds[0]);
  closeFd(fds[1]);
  int status = 0;
  // Both pipes closed does not mean the child ended: a program that points its stdout and
  // stderr at files (`diffstat -o OUT -e ERR`, freopen) closes them and may still run, or
  // loop. The timeout holds until it is reaped: waited for without blocking, at first
  // often (it usually ends right after its output), then every 10 ms.
  bool reaped = false;
  if (!result.timedOut && !result.outputLimited && spec.timeoutSeconds > 0) {
    useconds_t pause = 100;
    for (;;) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        reaped = true;
        break;
      }
      if (w < 0 && errno != EINTR)
        break;
      if (spec.timeoutSeconds - elapsed() <= 0) {
        stopAtTimeout();
        break;
      }
      usleep(pause);
      pause = std::min<useconds_t>(pause * 2, 10000);
    }
  }
  while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  // Grandchildren may still hold the group; make sure nothing outlives us on timeout.
  if (result.timedOut || result.outputLimited)
    kill(-pid, SIGKILL);
  result.seconds = elapsed();
  if (!result.timedOut && !result.outputLimited) {
    if (WIFEXITED(status))
      result.exitCode = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      result.signal = WTERMSIG(status);
  }
  if (!result.timedOut && result.exitCode == 127 && result.signal == 0 &&
      ::access(spec.argv[0].c_str(), X_OK) != 0)
    throw Error("cannot run '" + spec.argv[0] + "'");
  return result;
}

std::string toolFailure(const ProcessResult &r, const std::string &tool,
                        const std::string &otherwise) {
  if (!r.timedOut)
    return otherwise;
  return tool + " did not end within " + std::to_string(static_cast<int>(kToolSeconds)) + " s";
}

bool isCodeDiagnostic(const std::string &line) {
  bool driver = line.starts_with("clang") || line.starts_with("rootline-cc") ||
                line.starts_with("make") || line.starts_with("gcc") || line.starts_with("cc:");
  return (line.find(": error:") != std::string::npos && !driver) ||
         line.find("undefined reference") != std::string::npos;
}

std::string firstErrorLine(const std::string &log) {
  std::istringstream in(log);
  std::string line, anyError, fallback;
  while (std::getline(in, line)) {
    // A diagnostic ("x.c:3:5: error: …", the linker's "undefined reference to …") says
    // more than the driver's "clang: error: linker command failed".
    if (isCodeDiagnostic(line))
      return line;
    if (anyError.empty() &&
        (line.find("error") != std::string::npos || line.find("Error") != std::string::npos))
      anyError = line;
    if (!line.empty())
      fallback = line;
  }
  return anyError.empty() ? fallback : anyError; // else the last line said something
}

} // namespace rootline
