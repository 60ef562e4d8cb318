// Repairs that depend on each other (docs/debug.md, "Edit evidence"): when one-token edits
// of several lines each make the test pass, a line whose execution on the failure's slice
// depends on another repaired line may only make up for that line's fault (a condition
// after a helper's wrong answer takes the other way). The relevant slice of each repaired
// line's last execution on the failure's slice says which repaired lines it depends on.
#include "compose/debug_stages.h"

#include <llvm/IR/Instructions.h>

#include <algorithm>
#include <map>
#include <set>

namespace rootline::debug {

namespace {

// How well an instance of a repaired line stands for the edited token: its instruction
// is at the token's column (clang places an operator's instructions there), else it
// decides (a comparison, a conditional branch or switch), else any instruction of the line.
int standsFor(const llvm::Instruction *inst, size_t column) {
  if (const llvm::DebugLoc &dl = inst->getDebugLoc(); dl && dl.getCol() == column + 1)
    return 2;
  if (llvm::isa<llvm::CmpInst>(inst) || llvm::isa<llvm::SwitchInst>(inst))
    return 1;
  if (auto *br = llvm::dyn_cast<llvm::BranchInst>(inst); br && br->isConditional())
    return 1;
  return 0;
}

} // namespace

std::string dependentRepairsPhrase(const std::vector<std::string> &dependents) {
  if (dependents.empty())
    return "";
  if (dependents.size() == 1)
    return "; " + dependents.front() + ", whose edit passes too, depends on this line's execution";
  return "; " + dependents.front() + " and " + std::to_string(dependents.size() - 1) +
         " more repaired line(s), whose edits pass too, depend on this line's execution";
}

void orderRepairs(std::vector<DebugCandidate> &candidates, const RevertEvidence &ev,
                  const Version &newV, const Deadline &deadline) {
  using Line = std::pair<std::string, unsigned>;
  std::map<Line, size_t> repaired; // line → the column of its passing edit
  for (const RevertEvidence::Edit &e : ev.edits)
    if (e.result == "passes")
      repaired.try_emplace({e.file, e.line}, e.column);
  const auto &records = newV.trace.dynamic.records;
  if (repaired.size() < 2 || !newV.index || !newV.analysis)
    return;
  // The line of an instance, when it is a repaired one; each instruction is looked at once.
  std::map<uint32_t, std::optional<Line>> lineOfId;
  auto repairedLineOf = [&](uint64_t i) -> const std::optional<Line> & {
    auto [it, fresh] = lineOfId.try_emplace(records.id(i));
    if (fresh) {
      SourceLocation loc = ModuleIndex::locationOf(newV.index->instruction(records.id(i)));
      Line l{relativeTo(loc.path(), newV.root), loc.line};
      if (loc.valid() && repaired.count(l))
        it->second = l;
    }
    return it->second;
  };
  // Each repaired line's last execution on the failure's slice of the instruction that
  // stands best for its edited token (a `||` after the line's last decision is not it).
  std::map<Line, std::pair<int, uint64_t>> last; // line → (how well, instance)
  auto allAtToken = [&] {
    return last.size() == repaired.size() &&
           std::all_of(last.begin(), last.end(), [](const auto &l) { return l.second.first == 2; });
  };
  for (uint64_t i = std::min<uint64_t>(records.size(), newV.slice.member.size()); i-- > 0;) {
    if ((i & 0xffff) == 0 && (deadline.expired() || allAtToken()))
      break;
    if (!newV.slice.contains(i))
      continue;
    const auto &l = repairedLineOf(i);
    if (!l)
      continue;
    int fit = standsFor(newV.index->instruction(records.id(i)), repaired[*l]);
    auto [it, fresh] = last.try_emplace(*l, fit, i);
    if (!fresh && fit > it->second.first)
      it->second = {fit, i};
  }
  // dependsOn[B]: the other repaired lines whose chosen execution, earlier than B's, is
  // in the slice of B's. Earlier only, so no two lines depend on each other: in a loop
  // every line feeds every later one, and only the last executions on the failure's
  // slice say which came first on its way.
  std::map<uint64_t, Line> byInstance;
  for (const auto &[line, found] : last)
    byInstance[found.second] = line;
  std::map<Line, std::set<Line>> dependsOn;
  for (const auto &[instance, line] : byInstance) {
    if (instance == byInstance.begin()->first)
      continue; // nothing chosen before it
    if (deadline.expired())
      return; // no order is claimed without its slices
    Slice s = computeSlice(newV.trace.dynamic, *newV.index, *newV.analysis,
                           {{instance, true, {}, false}}, true, deadline);
    if (!s.complete)
      return;
    for (const auto &[earlier, other] : byInstance)
      if (earlier < instance && s.contains(earlier))
        dependsOn[line].insert(other);
  }
  auto name = [](const Line &l) { return l.first + ":" + std::to_string(l.second); };
  for (DebugCandidate &c : candidates) {
    if (c.version != "new" || c.edit.empty())
      continue;
    Line self{c.file, c.line};
    std::vector<std::string> dependents;
    for (const auto &[b, lines] : dependsOn)
      if (lines.count(self))
        dependents.push_back(name(b));
    c.repairsUpstream = static_cast<unsigned>(dependents.size());
    c.edit += dependentRepairsPhrase(dependents);
    if (auto it = dependsOn.find(self); it != dependsOn.end())
      for (const Line &a : it->second) {
        std::string whole; // the whole test's verdict on that line's edit (--test)
        for (const RevertEvidence::Edit &e : ev.edits)
          if (e.result == "passes" && e.file == a.first && e.line == a.second)
            whole = e.wholeTest;
        c.reasons.push_back("its execution depends on " + name(a) + ", whose edit " +
                            passPhrase(ev.processOnly, whole) +
                            " too: this line's edit may make up for a fault there");
        break;
      }
  }
}

} // namespace rootline::debug
