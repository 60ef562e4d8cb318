// The slice stage: each version's relevant slice of its criterion, computed once from
// the concrete dependences, and its source lines for the reports.
#include "compose/debug_stages.h"

namespace rootline::debug {

void sliceVersion(Version &v, const Deadline &deadline, DebugReport &report, Stages &stages) {
  stages.update(v.name + " version");
  v.slice = computeSlice(v.trace.dynamic, *v.index, *v.analysis, v.seeds, true, deadline);
  v.sliceComplete = v.slice.complete;
  if (!v.slice.complete)
    stages.cut("the " + v.name + " version's slice stopped " + std::to_string(v.slice.stoppedAt) +
               " instances from the start of the run; earlier dependences are missing");
  auto &lines = v.name == "old" ? report.oldSliceLines : report.newSliceLines;
  for (const llvm::Instruction *inst : sliceInstructions(v)) {
    SourceLocation loc = ModuleIndex::locationOf(inst);
    if (loc.valid())
      lines[relativeTo(loc.path(), v.root)].insert(loc.line);
  }
}

std::vector<const llvm::Instruction *> sliceInstructions(const Version &v) {
  std::vector<const llvm::Instruction *> out;
  const auto &records = v.trace.dynamic.records;
  std::vector<bool> seen; // by instruction id: a long slice lists each one once
  for (uint64_t i = 0; i < records.size(); ++i) {
    if (!v.slice.contains(i))
      continue;
    uint32_t id = records.id(i);
    if (id >= seen.size())
      seen.resize(id + 1);
    if (seen[id])
      continue;
    seen[id] = true;
    out.push_back(v.index->instruction(id));
  }
  return out;
}

} // namespace rootline::debug
