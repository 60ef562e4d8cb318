// The failure stage: both versions run natively on the failing input (twice each, so a
// nondeterministic program is caught), and what kind of failure the new one shows.
#include "compose/debug_stages.h"

#include "rootline/output_values.h"

#include "rootline/error.h"

#include <algorithm>

namespace rootline::debug {

namespace {

// The output values that differ (docs/validate.md, "Values"), for the failure's sentence:
// ": value 1 of line 1 is `25` where `0` is expected (1 other value differs)".
std::string firstValueText(const std::string &expected, const std::string &actual) {
  for (const ComparedValue &c : compareValues({expected, actual})) {
    if (c.same() || !c.place.value)
      continue;
    size_t others = differingValues(expected, actual).size() - 1;
    return ": " + placeText(c.place) + " is `" + *c.texts[1] + "` where `" + *c.texts[0] +
           "` is expected" +
           (others ? " (" + std::to_string(others) + " other value(s) or line(s) differ)" : "");
  }
  return "";
}

} // namespace

namespace {

uint64_t commonPrefix(const std::string &a, const std::string &b) {
  uint64_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at])
    ++at;
  return at;
}

std::vector<std::string_view> linesOf(const std::string &text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    out.push_back(std::string_view(text).substr(start, end - start));
    start = end;
  }
  return out;
}

// Whether every line of `part` appears in `whole`, in order (lines dropped from `whole`).
bool dropsLines(const std::string &whole, const std::string &part) {
  std::vector<std::string_view> w = linesOf(whole), p = linesOf(part);
  size_t i = 0;
  for (size_t j = 0; j < w.size() && i < p.size(); ++j)
    if (w[j] == p[i])
      ++i;
  return i == p.size() && p.size() < w.size();
}

// Where two outputs part, in words: "from byte 12: `abc` in the test, `abd` alone".
std::string firstDifferenceText(const std::string &test, const std::string &alone) {
  uint64_t at = commonPrefix(test, alone);
  auto piece = [&](const std::string &s) {
    std::string p = s.substr(std::min<size_t>(at, s.size()), 24);
    for (char &c : p)
      if (c == '\n' || c == '\t' || static_cast<unsigned char>(c) < 0x20)
        c = ' ';
    return p.empty() ? std::string("the end") : "`" + p + "`";
  };
  return "from byte " + std::to_string(at) + ": " + piece(test) + " in the test, " + piece(alone) +
         " alone";
}

} // namespace

double hangTimeout(double timeoutSeconds, double oldSeconds) {
  return std::min(timeoutSeconds, std::max(kHangFloorSeconds, kHangTimeFactor * oldSeconds));
}

std::string failureKindOf(const RunSummary &expected, const RunSummary &failing, bool hang) {
  if (hang)
    return "hang";
  if (failing.outcome.starts_with("signal") && !expected.outcome.starts_with("signal"))
    return "crash";
  const std::string &a = expected.stdoutBytes, &b = failing.stdoutBytes;
  if (a == b)
    return "exit status";
  uint64_t at = commonPrefix(a, b);
  if (at == b.size() || dropsLines(a, b))
    return "missing output";
  if (at == a.size() || dropsLines(b, a))
    return "extra output";
  return "wrong output";
}

void establishFailure(const DebugRequest &req, const Version &oldV, const Version &newV,
                      const fs::path &work, const Deadline &deadline, DebugReport &report) {
  // A run cut short by the budget would look like a hang: each run gets its own
  // timeout, shortened only when the budget is nearly spent.
  double timeout = deadline.clamp(req.timeoutSeconds, std::min(req.timeoutSeconds, 2.0));
  RunSummary old1 = runInputNatively(oldV.native, req.input, work / "o1", timeout);
  if (old1.outcome == "timeout")
    throw Error("the old version does not finish the test within --timeout (" +
                std::to_string(static_cast<int>(timeout)) + " s)");
  RunSummary old2 = runInputNatively(oldV.native, req.input, work / "o2", timeout);
  if (old1.stdoutBytes != old2.stdoutBytes || old1.outcome != old2.outcome)
    throw Error(
        "the program is nondeterministic: two runs of the old version on the same input differ");
  // The new version gets a multiple of the old one's time: past it, it hangs.
  report.runTimeoutSeconds = hangTimeout(timeout, std::max(old1.seconds, old2.seconds));
  RunSummary new1 = runInputNatively(newV.native, req.input, work / "n1", report.runTimeoutSeconds);
  report.oldRun = old1;
  report.newRun = new1;
  report.expected =
      req.expectedStdout && !req.wholeBehaviour ? RunSummary{"", *req.expectedStdout, 0, ""} : old1;
  if (req.expectedStdout && old1.stdoutBytes != *req.expectedStdout)
    throw Error(req.wholeBehaviour
                    ? "the failing process " + req.processName +
                          ", run alone with the inputs it had in the test (stdin, arguments, "
                          "the files it read or its arguments named), prints otherwise on the "
                          "old version than in the test (" +
                          firstDifferenceText(*req.expectedStdout, old1.stdoutBytes) +
                          "): it depends on something rootline does not record (the "
                          "environment, a file a program it ran opened by another name)"
                    : "the test fails on the old version too: its output differs from --expect");
  report.stderrCounts = req.wholeBehaviour;
  report.hang = new1.outcome == "timeout";
  if (report.hang) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "the new version does not finish the test: stopped after %.1f s (the old "
                  "version takes %.3f s)",
                  new1.seconds, old1.seconds);
    report.failure = buf;
    report.failureKind = "hang";
    return;
  }
  RunSummary new2 = runInputNatively(newV.native, req.input, work / "n2", timeout);
  if (new1.stdoutBytes != new2.stdoutBytes || new1.outcome != new2.outcome)
    throw Error(
        "the program is nondeterministic: two runs of the new version on the same input differ");
  bool outputDiffers = new1.stdoutBytes != report.expected.stdoutBytes;
  bool outcomeDiffers = (!req.expectedStdout || req.wholeBehaviour) && new1.outcome != old1.outcome;
  // A test command's failing process may differ in its diagnostics alone.
  bool stderrDiffers = req.wholeBehaviour && new1.stderrBytes != old1.stderrBytes &&
                       old1.stderrBytes == old2.stderrBytes && new1.stderrBytes == new2.stderrBytes;
  if (!outputDiffers && !outcomeDiffers && !stderrDiffers)
    throw Error("the test does not fail on the new version: it prints the expected output" +
                std::string(req.expectedStdout && !req.wholeBehaviour
                                ? ""
                                : " and ends like the old version (" + old1.outcome + ")"))
        .withKind(kErrorTestPasses);
  uint64_t at = commonPrefix(report.expected.stdoutBytes, new1.stdoutBytes);
  report.failureKind = failureKindOf(report.expected, new1, false);
  if (!outputDiffers && !outcomeDiffers)
    report.failureKind = "diagnostics";
  uint64_t errAt = commonPrefix(old1.stderrBytes, new1.stderrBytes);
  std::string stderrPart = "its stderr differs from byte " + std::to_string(errAt);
  report.failure =
      outputDiffers ? (req.input.outputFile.empty() ? std::string("stdout")
                                                    : "the file " + req.input.outputFile) +
                          " differs from the expected output from byte " + std::to_string(at) +
                          firstValueText(report.expected.stdoutBytes, new1.stdoutBytes)
      : outcomeDiffers ? "the new version ends with " + new1.outcome + " instead of " +
                             old1.outcome + (stderrDiffers ? ", and " + stderrPart : "")
                       : "stdout and the ending are the same, but " + stderrPart;
  if (report.failureKind == "missing output")
    report.failure += new1.stdoutBytes.empty()        ? " (the new version prints nothing)"
                      : at == new1.stdoutBytes.size() ? " (the new version stops printing there)"
                                                      : " (the new version leaves out lines)";
  else if (report.failureKind == "extra output")
    report.failure += " (the new version prints more)";
}

} // namespace rootline::debug
