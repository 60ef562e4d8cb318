// What each instance of a run was computed from, for telling meaningful differences
// between two runs from noise (docs/alignment.md, "Noise and the change"):
// - noise: a value computed from an address (`ptrtoint`, a hash seed made of `&h`), the
//   clock, the process id or a random source. Two runs may differ there for no reason
//   the code change gave. Address arithmetic cancels: `p - q` of two addresses is an
//   offset, not noise. A value loaded through a noisy address (a hash bucket) is the
//   value stored there, not noise: what the program found is what it means.
// - a noisy slot: a value loaded through a noisy address (a collision chain's head or a
//   node's key, read where a seeded hash pointed), and what the same function computes
//   from it, through its own variables. What is there is the slot's, so a branch on it
//   (`ts != NULL`) is decided by noise; returned, or stored where it outlives the call,
//   it is what the lookup found. A value a store put at a noisy address is one too where
//   it is read (a scan over a table's nodes finds it where noise placed it).
// - noise control: the instance ran because a branch decided by noise went its way (a
//   collision chain walked one step further). Under a branch on a noisy value, callees
//   too; under a branch on a noisy slot, only that function's own code (what a callee
//   does with the value a lookup found is not noise).
// - from the change: computed from, or run because of, an execution of a changed line.
// Forward over the dependences the slice stage recorded; instances past `known` (the
// replay stopped, or the deadline ended the pass) are unknown.
#pragma once

#include "rootline/budget.h"
#include "rootline/module_index.h"
#include "rootline/slice.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace rootline {

struct RunTaint {
  enum : uint8_t {
    Address = 1,           // data: computed from an address
    Environment = 2,       // data: the clock, the process id, a random source
    NoiseControl = 4,      // ran under a branch decided by noise
    FromChange = 8,        // data or control: reached from a changed line's execution
    NoisySlot = 16,        // data, within one function's variables: loaded from a noisy address
    NoisyPlace = 32,       // a store: to an address noise chose
    NoiseControlHere = 64, // ran under a branch on a noisy slot, in that branch's function
  };
  std::vector<uint8_t> flags; // per instance, [0, known)
  uint64_t known = 0;

  bool noisyValue(uint64_t instance) const {
    return instance < known && (flags[instance] & (Address | Environment));
  }
  // A branch on a noisy value or on a noisy slot's pointer.
  bool noisyDecision(uint64_t instance) const {
    return instance < known && (flags[instance] & (Address | Environment | NoisySlot));
  }
  bool noisyControl(uint64_t instance) const {
    return instance < known && (flags[instance] & (NoiseControl | NoiseControlHere));
  }
  // Unknown instances count as reached from the change: nothing is left out unseen.
  bool fromChange(uint64_t instance) const {
    return instance >= known || (flags[instance] & FromChange);
  }
};

// Library calls whose result differs between runs of the same input (time, getpid,
// rand, ...).
bool isEnvironmentSource(const llvm::Function &callee);

RunTaint taintRun(const DynamicTrace &trace, const ModuleIndex &index,
                  const std::function<bool(const llvm::Instruction *)> &onChangedLine,
                  const Deadline &deadline);

struct ExecutionLog;
// Marks the effects whose values are noise, and the executions noise decided to run.
void markNoise(ExecutionLog &log, const RunTaint &taint, const DynamicTrace &trace);

} // namespace rootline
