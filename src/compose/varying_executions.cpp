#include "compose/varying_executions.h"

#include "rootline/explore.h"
#include "rootline/run.h"

#include <string>

namespace rootline::debug {

std::vector<bool> varyingExecutions(const Version &v, const ExecutionLog &log,
                                    const RecordExecutions &record, const StoreTarget &target,
                                    const Deadline &deadline, Stages &stages) {
  if (v.traceFile.empty() || deadline.expired())
    return {};
  fs::path work = v.traceFile.parent_path() / "again";
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::create_directories(work);
  TestCase test = materialiseInput(v.trace.input, work);
  test.env[kStackShiftVariable] = std::string(kStackShiftBytes, 'x');
  // As long as the first traced run took, with room; never past the stage's share.
  test.timeoutSeconds = deadline.clamp(1 + 4 * v.trace.process.seconds, 1.0);
  stages.update(v.name + " version, traced again with its stack elsewhere");
  fs::path trace = work / "run.trace";
  TracedRun run = runTraced(v.program, test, trace);
  if (run.limitReached || run.process.timedOut)
    return {};
  ExecutionLog again = record(trace, deadline);
  if (!again.complete)
    return {};
  Alignment a = alignExecutions(log, again, target, target);
  std::vector<bool> varies(log.executions.size(), false);
  for (size_t i = 0; i < varies.size(); ++i)
    varies[i] = a.oldStatus[i] != Aligned::Same;
  fs::remove_all(work, ec); // the trace may be large; nothing reads it again
  return varies;
}

} // namespace rootline::debug
