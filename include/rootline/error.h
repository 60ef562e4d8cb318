// Errors that reach the user: one line of message, optional detail (e.g. compiler
// diagnostics), and the process exit code the CLI should use.
#pragma once

#include <stdexcept>
#include <string>

namespace rootline {

// Documented in docs/cli.md. Follows `git bisect run` where it fits.
enum ExitCode : int {
  ExitOk = 0,
  ExitFailure = 1,  // the analysed condition holds (e.g. "bad" for bisect --check)
  ExitBadInput = 2, // bad usage, missing file, program does not compile, ...
  ExitInternal = 3, // a bug in rootline (mismatch in replay, unexpected state)
  ExitCannotTest = 125,
};

class Error : public std::runtime_error {
public:
  explicit Error(const std::string &message, int exitCode = ExitBadInput, std::string detail = {})
      : std::runtime_error(message), exitCode_(exitCode), detail_(std::move(detail)) {}
  int exitCode() const { return exitCode_; }
  const std::string &detail() const { return detail_; }
  // A stable name for errors that callers act on ("test-passes"); empty otherwise.
  // `--json` prints it (docs/cli.md), so a fan-out (triage) needs no message matching.
  const std::string &kind() const { return kind_; }
  Error &withKind(std::string kind) {
    kind_ = std::move(kind);
    return *this;
  }

private:
  int exitCode_;
  std::string detail_;
  std::string kind_;
};

// The error kinds (Error::kind) that callers may rely on.
inline constexpr const char *kErrorTestPasses = "test-passes";

} // namespace rootline
