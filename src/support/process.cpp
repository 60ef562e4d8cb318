#include "rootline/process.h"

#include "rootline/error.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
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

// What the child needs, made before the fork: between fork and exec the child of a
// process with other threads may only make async-signal-safe calls. A lock another
// thread held at the fork (malloc's, the environment's) stays held in the child.
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

[[noreturn]] void execChild(const ChildPlan &plan, bool noAddressRandomization, int outFd,
                            int errFd) {
  // Own process group so a timeout can kill the whole tree.
  setpgid(0, 0);
  // Fixed addresses: a program whose behaviour depends on where things are mapped (an
  // out-of-range read, a printed pointer) behaves the same on every run.
  // Otherwise randomized, as a shell runs programs, even under a parent that turned it
  // off (the flag is inherited across exec): a test run by rootline run by a test.
  if (int now = personality(0xffffffff); now != -1)
    personality(noAddressRandomization ? (now | ADDR_NO_RANDOMIZE) : (now & ~ADDR_NO_RANDOMIZE));
  int in = ::open(plan.stdinPath, O_RDONLY);
  if (in < 0)
    _exit(127);
  dup2(in, 0);
  dup2(outFd, 1);
  dup2(errFd, 2);
  if (plan.workDir && chdir(plan.workDir) != 0)
    _exit(127);
  execve(plan.program, plan.argv.data(), plan.envp.empty() ? environ : plan.envp.data());
  _exit(127);
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
  pid_t pid = fork();
  if (pid < 0)
    throw Error(std::string("cannot fork: ") + strerror(errno), ExitInternal);
  if (pid == 0)
    execChild(plan, spec.noAddressRandomization, outPipe[1], errPipe[1]);
  setpgid(pid, pid);
  ::close(outPipe[1]);
  ::close(errPipe[1]);

  ProcessResult result;
  int fds[2] = {outPipe[0], errPipe[0]};
  std::string *sinks[2] = {&result.out, &result.err};
  char buf[65536];
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
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
        result.timedOut = true;
        if (spec.termGraceSeconds > 0) {
          kill(-pid, SIGTERM);
          auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration<double>(spec.termGraceSeconds);
          int st;
          while (std::chrono::steady_clock::now() < deadline && waitpid(pid, &st, WNOHANG) == 0)
            usleep(10000);
        }
        kill(-pid, SIGKILL);
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
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
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
