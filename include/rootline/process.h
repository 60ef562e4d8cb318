// Running a child process with a file as stdin, captured output and a timeout.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rootline {

struct ProcessSpec {
  std::vector<std::string> argv; // argv[0] is the program path
  // The file to execute when it is not argv[0] (a program started under the name a
  // test gives it, "./src/prog", from wherever it was built).
  std::string program;
  std::optional<std::string> stdinFile;        // else stdin is /dev/null
  std::map<std::string, std::string> extraEnv; // added to the inherited environment
  std::string workDir;                         // empty: inherit
  double timeoutSeconds = 0;                   // 0: no timeout
  // On timeout, SIGTERM first and SIGKILL after this many seconds (0: SIGKILL at once),
  // so a traced program can flush its trace.
  double termGraceSeconds = 0;
  // true: like `setarch -R`; false: randomized, as a shell runs programs, whatever the
  // parent's setting.
  bool noAddressRandomization = true;
  // Killed once stdout and stderr together exceed this many bytes (0: no limit), so a
  // made-up input that makes the program print without end costs bounded memory.
  uint64_t maxOutputBytes = 0;
};

struct ProcessResult {
  int exitCode = -1; // valid when signal == 0 and !timedOut
  int signal = 0;    // terminating signal, 0 if it exited
  bool timedOut = false;
  bool outputLimited = false; // killed at ProcessSpec::maxOutputBytes
  std::string out;            // captured stdout
  std::string err;            // captured stderr
  double seconds = 0;         // wall-clock time

  bool exitedWith(int code) const { return !timedOut && signal == 0 && exitCode == code; }
  // "exit 0", "signal SIGSEGV", "timeout"
  std::string outcome() const;
};

// Runs the process to completion, capturing stdout and stderr. Throws Error only when
// the process cannot be started at all.
ProcessResult runProcess(const ProcessSpec &spec);

std::string signalName(int sig);

// The line of a tool's log that names its first error: a diagnostic ("x.c:3: error:",
// "undefined reference to"), else a line holding "error", else its last non-empty line
// (a compiler's first line is often "In file included from …").
std::string firstErrorLine(const std::string &log);
// Whether one line of a build's log is a diagnostic of the code: a compiler's
// "x.c:3:5: error:" (not a driver's "clang: error: …") or a linker's "undefined
// reference".
bool isCodeDiagnostic(const std::string &line);

// A helper tool's run (clang on one unit, the link, a tree copy) that takes longer than
// this is hung, not slow: no such run is unbounded.
inline constexpr double kToolSeconds = 600;
// Why a tool's run failed: "clang did not end within 600 s" when `r` timed out, else
// `otherwise` (the caller's choice of line from its log).
std::string toolFailure(const ProcessResult &r, const std::string &tool,
                        const std::string &otherwise);

} // namespace rootline
