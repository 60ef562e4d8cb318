// The failure stage: both versions run natively, twice each, on the failing input.
#include "compose/debug_stages.h"

#include "rootline/error.h"

namespace rootline::debug {

void establishFailure(const DebugRequest &req, const Version &oldV, const Version &newV,
                      const fs::path &work, const Deadline &deadline, DebugReport &report) {
  // A run cut short by the budget would look like a hang: each run gets its own
  // timeout, shortened only when the budget is nearly spent.
  double timeout = deadline.clamp(req.timeoutSeconds, std::min(req.timeoutSeconds, 2.0));
  RunSummary old1 = runInputNatively(oldV.native, req.input, work / "o1", timeout);
  RunSummary old2 = runInputNatively(oldV.native, req.input, work / "o2", timeout);
  RunSummary new1 = runInputNatively(newV.native, req.input, work / "n1", timeout);
  RunSummary new2 = runInputNatively(newV.native, req.input, work / "n2", timeout);
  if (old1.outcome == "timeout" || new1.outcome == "timeout")
    throw Error(std::string("the ") + (old1.outcome == "timeout" ? "old" : "new") +
                " version does not finish the test within --timeout");
  if (old1.stdoutBytes != old2.stdoutBytes || old1.outcome != old2.outcome)
    throw Error(
        "the program is nondeterministic: two runs of the old version on the same input differ");
  if (new1.stdoutBytes != new2.stdoutBytes || new1.outcome != new2.outcome)
    throw Error(
        "the program is nondeterministic: two runs of the new version on the same input differ");
  report.oldRun = old1;
  report.newRun = new1;
  report.expected = req.expectedStdout ? RunSummary{"", *req.expectedStdout} : old1;
  if (req.expectedStdout && old1.stdoutBytes != *req.expectedStdout)
    throw Error("the test fails on the old version too: its output differs from --expect");
  bool outputDiffers = new1.stdoutBytes != report.expected.stdoutBytes;
  bool outcomeDiffers = !req.expectedStdout && new1.outcome != old1.outcome;
  if (!outputDiffers && !outcomeDiffers)
    throw Error("the test does not fail on the new version: it prints the expected output" +
                std::string(req.expectedStdout
                                ? ""
                                : " and ends like the old version (" + old1.outcome + ")"));
  uint64_t at = 0;
  const std::string &a = report.expected.stdoutBytes, &b = new1.stdoutBytes;
  while (at < a.size() && at < b.size() && a[at] == b[at])
    ++at;
  report.failure =
      outputDiffers ? "stdout differs from the expected output from byte " + std::to_string(at)
                    : "the new version ends with " + new1.outcome + " instead of " + old1.outcome;
}

} // namespace rootline::debug
