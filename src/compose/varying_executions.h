// Two runs of the same version on the same input: what differs between them is noise
// that the taint of run_taint.h may not see (a seed read from an address's bytes, an
// order the collector made from one). docs/alignment.md, "Runs of the same version".
#pragma once

#include "compose/debug_stages.h"

#include <functional>
#include <vector>

namespace rootline::debug {

// An execution log of `v`'s module from a trace of it (the align stage's replay).
using RecordExecutions =
    std::function<ExecutionLog(const fs::path &traceFile, const Deadline &deadline)>;

// The environment variable that moves a second run's stack, and its length: its
// strings sit above the stack, so every local is elsewhere (by more than 16 bytes, so
// the address bits a seed mixes differ too).
inline constexpr const char *kStackShiftVariable = "ROOTLINE_STACK_SHIFT";
inline constexpr size_t kStackShiftBytes = 2072;

// `v`'s traced run again on its input with the stack placed elsewhere, aligned with
// `log`: per execution of `log`, whether it differs in that run or does not happen
// there. Empty when the run or its replay did not finish within `deadline`.
std::vector<bool> varyingExecutions(const Version &v, const ExecutionLog &log,
                                    const RecordExecutions &record, const StoreTarget &target,
                                    const Deadline &deadline, Stages &stages);

} // namespace rootline::debug
