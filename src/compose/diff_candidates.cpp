// The first ranking: changed lines in a version's relevant slice, nearest to the
// failure first. It needs no solver, so a ranking exists seconds into the job; the
// composition and the evidence runs refine it (DESIGN.md 2.8).
#include "compose/debug_stages.h"

#include "rootline/c_tokens.h"

#include <llvm/IR/Instructions.h>

#include <set>
#include <vector>

namespace rootline::debug {

namespace {

// Changed lines of a switch's body that hold no code of their own: case labels (and
// blank or comment lines among them). Adding, deleting or changing `case 10:` changes
// only the switch's case table, which sits on the `switch` line.
std::vector<unsigned> changedCaseLabels(const Version &v, const llvm::SwitchInst *sw,
                                        Diffs &diffs) {
  SourceLocation at = ModuleIndex::locationOf(sw);
  unsigned last = at.line;
  for (unsigned k = 0; k < sw->getNumSuccessors(); ++k)
    for (const llvm::Instruction &inst : *sw->getSuccessor(k)) {
      SourceLocation l = ModuleIndex::locationOf(&inst);
      if (l.valid() && l.path() == at.path()) {
        last = std::max(last, l.line);
        break;
      }
    }
  std::set<unsigned> withCode;
  for (const llvm::BasicBlock &bb : *sw->getFunction())
    for (const llvm::Instruction &inst : bb) {
      SourceLocation l = ModuleIndex::locationOf(&inst);
      if (l.valid() && l.path() == at.path())
        withCode.insert(l.line);
    }
  std::string rel = relativeTo(at.path(), v.root);
  std::vector<unsigned> out;
  for (unsigned line = at.line + 1; line < last; ++line)
    if (!withCode.count(line) && diffs.changed(rel, v.name == "new", line))
      out.push_back(line);
  return out;
}

// Whether a line of C is a statement label and nothing else (`again:`, `out: ;`):
// `case`/`default` labels and bit-fields are not (a keyword, or more tokens).
bool isStatementLabel(const std::string &line) {
  std::vector<CToken> t = tokenizeC(line);
  return (t.size() == 2 || (t.size() == 3 && t[2].text == ";")) &&
         t[0].kind == CToken::Identifier && !isCKeyword(t[0].text) && t[1].text == ":";
}

// Changed lines just above `inst`'s line that are labels of its statement: a label holds
// no code of its own (its block starts at the statement it labels), so moving or adding
// `loop:` changes where a `goto` lands, which shows only at that statement.
std::vector<unsigned> changedLabelsOf(const Version &v, const llvm::Instruction *inst,
                                      Diffs &diffs) {
  constexpr unsigned kReach = 8; // lines above the statement that may be its labels
  SourceLocation at = ModuleIndex::locationOf(inst);
  std::string rel = relativeTo(at.path(), v.root);
  std::vector<unsigned> out;
  bool anyChanged = false; // most statements have no changed line above: no reading
  for (unsigned line = at.line; line-- > 1 && at.line - line <= kReach && !anyChanged;)
    anyChanged = diffs.changed(rel, v.name == "new", line);
  if (!anyChanged)
    return out;
  // Blank and comment lines may sit between labels and their statement.
  for (unsigned line = at.line; line-- > 1 && at.line - line <= kReach;) {
    std::string text = sourceLine(at.path(), line);
    if (tokenizeC(text).empty())
      continue;
    if (!isStatementLabel(text))
      break;
    if (diffs.changed(rel, v.name == "new", line))
      out.push_back(line);
  }
  return out;
}

} // namespace

std::vector<DebugCandidate> changedLinesIn(const Version &v, const Slice &s,
                                           const std::string &kind, Diffs &diffs) {
  const auto &records = v.trace.dynamic.records;
  std::map<std::pair<std::string, unsigned>, DebugCandidate> byLine;
  // Per instruction id: 0 not looked at yet, 1 no source line, 2 looked at (a changed
  // line is in byLine, or the line is unchanged). A long slice asks the diff once per
  // instruction. Distance counts every slice member with a source line.
  std::vector<uint8_t> state;
  unsigned distance = 0;
  for (uint64_t i = std::min<uint64_t>(records.size(), s.member.size()); i-- > 0;) {
    if (!s.contains(i))
      continue;
    uint32_t id = records.id(i);
    if (id >= state.size())
      state.resize(id + 1, 0);
    if (state[id] == 1)
      continue;
    const llvm::Instruction *inst = v.index->instruction(id);
    if (state[id] == 0 && !ModuleIndex::locationOf(inst).valid()) {
      state[id] = 1;
      continue;
    }
    ++distance;
    if (state[id] == 2)
      continue;
    DebugCandidate c = candidateAt(v, inst, kind, diffs);
    // A changed line without code of its own, named by the statement in the slice that
    // stands for it.
    auto addLabel = [&](unsigned line, std::string neutral, std::string reason) {
      DebugCandidate label = c;
      label.line = line;
      label.source = sourceLine(ModuleIndex::locationOf(inst).path(), line);
      label.otherLine.reset();
      label.inChangedRegion = true;
      label.runsAt = c.line;
      label.neutral = std::move(neutral);
      label.distance = distance;
      label.reasons.push_back(std::move(reason));
      byLine.try_emplace({label.file, line}, label);
    };
    if (auto *sw = llvm::dyn_cast<llvm::SwitchInst>(inst))
      for (unsigned line : changedCaseLabels(v, sw, diffs))
        addLabel(line, c.neutral,
                 "a case label of the switch at line " + std::to_string(c.line) + " in the slice");
    for (unsigned line : changedLabelsOf(v, inst, diffs))
      addLabel(line, diffs.semantic(c.file, v.name == "new").neutralWhy(v.name == "new", line),
               "labels the statement at line " + std::to_string(c.line) + " of the " + v.name +
                   " version, in the slice: a `goto` to it lands there");
    state[id] = 2;
    if (!c.inChangedRegion || byLine.count({c.file, c.line}))
      continue;
    c.distance = distance;
    byLine[{c.file, c.line}] = c;
  }
  std::vector<DebugCandidate> out;
  for (auto &[k, c] : byLine)
    out.push_back(std::move(c));
  return out;
}

std::vector<DebugCandidate> changedLinesInSlice(const Version &v, const std::string &kind,
                                                Diffs &diffs) {
  return changedLinesIn(v, v.slice, kind, diffs);
}

std::vector<DebugCandidate> changedLinesExecuted(const Version &v, const std::string &kind,
                                                 Diffs &diffs) {
  Slice all;
  all.member.assign(v.trace.dynamic.records.size(), true);
  std::vector<DebugCandidate> out = changedLinesIn(v, all, kind, diffs);
  for (auto &c : out)
    c.reasons.push_back("executed in the failing run (no slice was available)");
  return out;
}

} // namespace rootline::debug
