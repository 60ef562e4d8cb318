// The rank stage: candidates ordered by what supports them, one per line.
#include "compose/debug_stages.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace rootline::debug {

namespace {

// Agreement on an input both versions reject (weak evidence) shows nothing.
int evidence(const DebugCandidate &c) {
  if (!c.weakEvidence.empty())
    return 0;
  return c.removesFailure ? 2 : (c.hasAlternative && c.changesFailure) ? 1 : 0;
}

// A regression is caused by the change: a line the change touched that the evidence
// does not refute (its alternative input, if any, removes or changes the failure)
// comes before unchanged lines. An input that avoids the changed code always
// "removes" the failure, so that evidence alone does not point at an unchanged line.
// An alternative input the budget left unrun refutes nothing.
// Weak evidence refutes nothing either.
bool changedUnrefuted(const DebugCandidate &c) {
  return c.inChangedRegion && (!c.ran || !c.weakEvidence.empty() || evidence(c) > 0);
}

// Reverting the line's hunk is the most direct evidence: it fixes the test alone, with
// others, or (tried and) does nothing. Untried and unresolved hunks say nothing.
int revertEvidence(const DebugCandidate &c) {
  if (c.revert == "fixes" || !c.edit.empty())
    return 3;
  if (c.revert == "fixes with others")
    return 2;
  // With --test, a revert that fixes the failing process while the whole test still
  // fails: that process needs the line, the test needs more (or other) lines.
  if (c.revert == "fixes first difference" || c.revert == "fixes failing process")
    return 1;
  if (c.revert == "no effect")
    return -1;
  return 0;
}

// Of two lines whose changes the test needs, one that a one-token edit repairs comes
// first: reverting a line can also switch the change off (the call of a function the
// change added), the edit keeps the rest of the change and fixes it there.
bool repairedByEdit(const DebugCandidate &c) { return !c.edit.empty(); }

// Of two lines whose reverts both fix (or both remove the first difference), the one
// whose revert puts back fewer lines says more: a line whose revert alone fixes the test
// comes before the lines of a group that does (execute.c:1319 narrowed from its group).
bool narrowerRevert(const DebugCandidate &a, const DebugCandidate &b) {
  return revertEvidence(a) >= 1 && revertEvidence(a) != 2 && revertEvidence(b) >= 1 &&
         a.revertLines > 0 && b.revertLines > 0 && a.revertLines < b.revertLines;
}

// Of two lines of one group that fixes, one whose own smaller revert removes the first
// difference comes first (diffstat's quoting call, 2090, in a 39-hunk group).
bool narrowedInGroup(const DebugCandidate &a, const DebugCandidate &b) {
  return a.revertUnit == b.revertUnit && !a.narrowedRevert.empty() && b.narrowedRevert.empty();
}

// A changed line that made a memory error of the new run possible (an array's size, a
// loop bound past the end, a free moved earlier). A finding the sanitizer build ran on
// and did not confirm ranks below every line without one.
int memoryEvidence(const DebugCandidate &c) {
  if (c.memoryError.empty())
    return 0;
  return c.memoryCheck == "unconfirmed" ? -1 : 1;
}

// A memory error the sanitizer build confirmed, made on the line itself (its access, or
// the allocation the change sized): the line's own fault. It stands with the lines whose
// revert fixes the test: a unit of several lines that fixes says one of them is needed
// (mawk's regex compiler, whose new path reaches the fault), not which; a line whose
// revert alone or whose edit fixes still comes first.
bool ownConfirmedFault(const DebugCandidate &c) {
  return c.memoryFaultOnLine && c.memoryCheck == "confirmed";
}

// A changed line of the new version where clang warns of a likely bug (a pointer stored
// in an integer, a format that does not fit its argument) that the old version does not
// give: of lines the trials cannot tell apart (one revert unit fixes them all, an edit
// elsewhere makes up for it), the one the compiler itself points at.
bool newBugWarning(const DebugCandidate &c) { return c.inChangedRegion && !c.newWarning.empty(); }

int fixTier(const DebugCandidate &c) {
  int r = revertEvidence(c);
  return ownConfirmedFault(c) ? std::max(r, 3) : r;
}

bool oneLineFix(const DebugCandidate &c) { return c.revert == "fixes" && c.revertLines == 1; }

// The aligned runs: a changed line whose executions differ (the dual slice) before one
// whose every execution computes the same values in both runs.
// Among those, a line whose execution read the same values as its counterpart and
// computed another comes first: the runs part there, the others follow from it.
int alignedEvidence(const DebugCandidate &c) {
  if (c.aligned == "differs")
    return c.alignedOrigin ? 2 : 1;
  return c.aligned == "same values" ? -1 : 0;
}

// The output spectrum: the share of the lines both versions print alike whose slices
// hold the line (lower first); 2 when unknown, which the spectrum leaves all or none of.
double sharedOutputShare(const DebugCandidate &c) {
  return c.sharedOutputs < 0 || c.sharedOutputsOf == 0
             ? 2.0
             : static_cast<double>(c.sharedOutputs) / c.sharedOutputsOf;
}

// "run by 1 of the 2 processes of the test whose behaviour differs between the versions,
// and by none of the 437 that behave alike"; of a sample: "by 3 of 64 replayed of the 437".
std::string testSpectrumReason(const ProcessCounts &ran, const ProcessCounts &of,
                               const ProcessCounts &among) {
  auto part = [](unsigned n, unsigned replayed, unsigned total) {
    return (n == 0 ? std::string("none") : std::to_string(n)) +
           (replayed == total ? "" : " of " + std::to_string(replayed) + " replayed") + " of the " +
           std::to_string(total);
  };
  return "run by " + part(ran.failing, of.failing, among.failing) +
         " process(es) of the test whose behaviour differs between the versions, and by " +
         part(ran.alike, of.alike, among.alike) + " that behave alike";
}

} // namespace

void rankCandidates(std::vector<DebugCandidate> &candidates, size_t max,
                    const std::optional<FirstDivergence> &first) {
  // Among lines the other evidence cannot tell apart (one revert unit fixes them all, all
  // in the dual slice), the line where the aligned runs first part comes first: the
  // earliest difference on the failure's slice, which the others follow from. Only a
  // difference in value counts: a line that does something else (calls a helper the
  // change extracted) differs by construction. Only a changed line: where the runs part
  // on a line the change left alone, a changed line before it made them part (a `goto`
  // label moved, so a loop after it starts elsewhere).
  auto divergesFirst = [&](const DebugCandidate &c) {
    return first && first->sameEffect && c.inChangedRegion && c.version == first->version &&
           c.file == first->file && c.line == first->line;
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const DebugCandidate &a, const DebugCandidate &b) {
                     if (fixTier(a) != fixTier(b))
                       return fixTier(a) > fixTier(b);
                     if (newBugWarning(a) != newBugWarning(b))
                       return newBugWarning(a);
                     if (repairedByEdit(a) != repairedByEdit(b))
                       return repairedByEdit(a);
                     // Of repaired lines, one whose edit makes more of the test's
                     // differing processes behave as in the old version (each run
                     // alone) explains more of what the test saw go wrong.
                     if (a.editRestores != b.editRestores)
                       return a.editRestores > b.editRestores;
                     // Of repaired lines, one others' repairs depend on first: theirs
                     // may make up for its fault (orderRepairs).
                     if (a.repairsUpstream != b.repairsUpstream)
                       return a.repairsUpstream > b.repairsUpstream;
                     if (oneLineFix(a) != oneLineFix(b))
                       return oneLineFix(a);
                     if (narrowerRevert(a, b) != narrowerRevert(b, a))
                       return narrowerRevert(a, b);
                     if (narrowedInGroup(a, b) != narrowedInGroup(b, a))
                       return narrowedInGroup(a, b);
                     if (memoryEvidence(a) != memoryEvidence(b))
                       return memoryEvidence(a) > memoryEvidence(b);
                     if (alignedEvidence(a) != alignedEvidence(b))
                       return alignedEvidence(a) > alignedEvidence(b);
                     if (testSuspicion(a) != testSuspicion(b))
                       return testSuspicion(a) > testSuspicion(b);
                     if (divergesFirst(a) != divergesFirst(b))
                       return divergesFirst(a);
                     if (a.fromSliceOnly != b.fromSliceOnly)
                       return b.fromSliceOnly;
                     if (changedUnrefuted(a) != changedUnrefuted(b))
                       return changedUnrefuted(a);
                     if (evidence(a) != evidence(b))
                       return evidence(a) > evidence(b);
                     if (a.inChangedRegion != b.inChangedRegion)
                       return a.inChangedRegion;
                     if (sharedOutputShare(a) != sharedOutputShare(b))
                       return sharedOutputShare(a) < sharedOutputShare(b);
                     return a.distance < b.distance;
                   });
  // One candidate per line: the best-ranked deviation stands for the others, and keeps
  // a memory error one of them carried.
  std::map<std::tuple<std::string, std::string, unsigned>, size_t> kept;
  std::vector<DebugCandidate> unique;
  for (auto &c : candidates) {
    auto [it, fresh] = kept.try_emplace({c.version, c.file, c.line}, unique.size());
    if (fresh)
      unique.push_back(std::move(c));
    else if (unique[it->second].memoryError.empty()) {
      unique[it->second].memoryError = c.memoryError;
      unique[it->second].memoryCheck = c.memoryCheck;
      unique[it->second].memoryFaultOnLine = c.memoryFaultOnLine;
    }
  }
  candidates = std::move(unique);
  if (candidates.size() > max)
    candidates.resize(max);
  for (size_t i = 0; i < candidates.size(); ++i)
    candidates[i].rank = static_cast<unsigned>(i + 1);
}

void explainCandidates(std::vector<DebugCandidate> &candidates, const std::string &output) {
  for (auto &c : candidates) {
    if (!c.edit.empty())
      c.reasons.push_back(c.edit);
    if (!c.revertDetail.empty())
      c.reasons.push_back(c.revertDetail);
    if (!c.narrowedRevert.empty())
      c.reasons.push_back(c.narrowedRevert);
    if (!c.processOnlyEdit.empty())
      c.reasons.push_back(c.processOnlyEdit);
    if (newBugWarning(c))
      c.reasons.push_back("clang warns at this line of the new version, with the unit's own "
                          "flags, of what the old version's compile does not warn of: " +
                          c.newWarning);
    if (!c.memoryError.empty())
      c.reasons.push_back("memory error: " + c.memoryError);
    if (!c.alignedDetail.empty())
      c.reasons.push_back(c.alignedDetail);
    if (!c.demonstrates.empty())
      c.reasons.push_back(c.demonstrates);
    for (const auto &e : c.valueEvidence)
      if (e.ran)
        c.reasons.push_back(e.demonstrates);
    // Value evidence that the line's value is what the outputs depend on.
    bool alikeWhenSame = std::any_of(c.valueEvidence.begin(), c.valueEvidence.end(), [](auto &e) {
      return e.ran && e.sameValue && e.outputsAgree;
    });
    bool apartWhenDifferent =
        std::any_of(c.valueEvidence.begin(), c.valueEvidence.end(),
                    [](auto &e) { return e.ran && !e.sameValue && !e.outputsAgree; });
    if (alikeWhenSame && apartWhenDifferent)
      c.reasons.push_back("the outputs follow this line's value: alike where old and new compute "
                          "the same value here, different where they do not");
    if (!c.missesCriterion.empty())
      c.reasons.push_back("the alternative input leaves the failing run's path but does not "
                          "reach the failing output: " +
                          c.missesCriterion);
    if (!c.weakEvidence.empty())
      c.reasons.push_back("weak evidence: " + c.weakEvidence +
                          ", so both versions behaving alike on it says nothing about this line");
    else if (c.removesFailure)
      c.reasons.push_back(c.agreesWhere.empty()
                              ? "on the alternative input both versions behave alike"
                              : "on the alternative input " + c.agreesWhere);
    else if (c.ran && c.changesFailure)
      c.reasons.push_back("the alternative input changes the new version's behaviour");
    else if (c.ran)
      c.reasons.push_back("the alternative input does not change the failure");
    else if (c.hasAlternative)
      c.reasons.push_back("the solver found an alternative input; the budget left no time to run "
                          "it");
    else
      c.reasons.push_back("ranked from the slice and the diff, without solver evidence");
    c.reasons.push_back(c.inChangedRegion ? "the line is in a region the change touched"
                                          : "the line is outside the changed regions");
    if (c.sharedOutputs >= 0) {
      std::string of =
          std::to_string(c.sharedOutputsOf) + " " + output + " line(s) both versions print alike";
      c.reasons.push_back(c.sharedOutputs == 0 ? "none of the " + of + " depends on it"
                          : static_cast<unsigned>(c.sharedOutputs) == c.sharedOutputsOf
                              ? "each of the " + of + " depends on it"
                              : std::to_string(c.sharedOutputs) + " of the " + of +
                                    " depend on it");
    }
    if (c.testSpectrumKnown)
      c.reasons.push_back(
          testSpectrumReason(c.testSpectrum, c.testSpectrumOf, c.testSpectrumAmong));
    // A line found by the revert trials alone is in no slice: no distance to tell.
    if (c.distance != ~0u)
      c.reasons.push_back(c.distance == 0 ? "closest to the failure in the slice"
                                          : std::to_string(c.distance) +
                                                " step(s) from the failure in the slice");
  }
}

} // namespace rootline::debug
