// Changed-computation evidence (docs/debug.md, "Evidence per candidate"). A changed line
// whose aligned executions store other values in the two runs is best shown by two
// inputs of the failing input's partition: one on which old and new store the same
// value there, one on which they differ. Run on both versions, the first should make
// them agree and the second disagree when that value is what the outputs depend on.
#include "compose/debug_stages.h"

#include "rootline/closest_input.h"
#include "rootline/expr_text.h"

#include <algorithm>

namespace rootline::debug {

namespace {

constexpr unsigned kQueryMs = 1000;          // per solver query
constexpr double kValueClosestSeconds = 1.0; // per closest-input search
constexpr size_t kMaxLines = 4;              // lines given value evidence, first ones first

} // namespace

void findValueEvidence(AlignmentFindings &findings, const Version &oldV, const Version &newV,
                       z3::context &ctx, const ProgramInput &failing, const fs::path &work,
                       double timeoutSeconds, const Deadline &deadline, Stages &stages,
                       bool stderrCounts) {
  const auto &oldWatched = oldV.trace.symbolic.watched, &newWatched = newV.trace.symbolic.watched;
  std::vector<InputVar> vars = inputsOfBoth(oldV, newV);
  // The failing input's values, to evaluate a line's values on it.
  z3::expr_vector from(ctx), to(ctx);
  for (const auto &in : vars)
    if (auto seed = valueIn(failing, in)) {
      from.push_back(ctx.bv_const(in.name.c_str(), in.bits));
      to.push_back(ctx.bv_val(*seed, in.bits));
    }
  // A partition past the composition's node bound (a real interpreter's thousands of
  // constraints) is more than a query can take in within its timeout: Z3 overran it by
  // seconds per query, and took seconds more to free each solver.
  uint64_t partitionNodes = 0;
  for (const Version *ver : {&oldV, &newV})
    for (const auto &c : ver->condition)
      partitionNodes += c.nodes;
  if (partitionNodes > kMaxComposeNodes) {
    bool anyDiffering = std::any_of(findings.lines.begin(), findings.lines.end(),
                                    [](const auto &l) { return l.second.newDiffStore != kNoDef; });
    if (anyDiffering)
      stages.note("no value evidence: the partition's " + std::to_string(partitionNodes) +
                  " nodes pass the bound of " + std::to_string(kMaxComposeNodes));
    return;
  }
  size_t lines = 0, foundCount = 0, n = 0;
  for (auto &[line, v] : findings.lines) {
    if (v.newDiffStore == kNoDef || lines >= kMaxLines || deadline.expired())
      continue;
    auto o = oldWatched.find(v.oldDiffStore), nw = newWatched.find(v.newDiffStore);
    if (o == oldWatched.end() || nw == newWatched.end())
      continue; // a value the inputs do not reach in one version: no input changes that
    z3::expr a = o->second, b = nw->second;
    if (!a.is_bv() || !b.is_bv() || a.get_sort().bv_size() != v.diffBits ||
        b.get_sort().bv_size() != v.diffBits)
      continue;
    ++lines;
    stages.update("value evidence for " + std::to_string(lines) + " changed line(s)");
    z3::solver s(ctx);
    z3::params p(ctx);
    p.set("timeout", deadline.clampMs(kQueryMs));
    s.set(p);
    addPartition(s, oldV, newV);
    // For the differing case, other values than the failing run's: the line's values
    // move with the input.
    z3::expr a0 = a.substitute(from, to).simplify(), b0 = b.substitute(from, to).simplify();
    z3::expr other = a != a0 || b != b0;
    for (bool same : {true, false}) {
      if (deadline.expired())
        break;
      // Each query under an assumption literal, not inside push/pop: Z3 takes in every
      // assertion on push outside any timeout, which on a long partition (a real
      // interpreter's thousands of constraints) took 20 s; a check keeps to its timeout.
      z3::expr focus = same ? a == b : (a != b && other);
      z3::expr guard =
          ctx.bool_const(("rl!value" + std::to_string(lines) + (same ? "s" : "d")).c_str());
      s.add(z3::implies(guard, focus));
      z3::expr_vector assumptions(ctx);
      assumptions.push_back(guard);
      ClosestInput closer(s, failing, vars);
      // A product or remainder of unknowns: first by evaluation, which is closest already.
      std::optional<z3::model> found =
          closer.nearSeedIntegers(assumptions, focus, deadline); // bounded inside
      if (!found && s.check(assumptions) == z3::sat)
        found = closer.closest(assumptions, s.get_model(), deadline.atMost(kValueClosestSeconds));
      if (found) {
        const z3::model &m = *found;
        ValueEvidence e;
        e.sameValue = same;
        e.input = applyModel(failing, vars, m);
        e.changes = describeInputChanges(failing, vars, m);
        e.what = v.diffTarget.empty() ? "the stored value" : "`" + v.diffTarget + "`";
        e.oldValue = readableExpr(m.eval(a, true));
        e.newValue = readableExpr(m.eval(b, true));
        double timeout = deadline.clamp(timeoutSeconds, 0.2);
        fs::path dir = work / ("value" + std::to_string(n++));
        std::tie(e.oldRun, e.newRun) =
            runMadeUpInputOnBoth(stages, oldV, newV, e.input, dir, timeout);
        e.ran = true;
        e.outputsAgree = behaveAlike(e.oldRun, e.newRun, stderrCounts);
        std::string values = same ? "both versions compute " + e.what + " = " + e.newValue
                                  : "the old version computes " + e.what + " = " + e.oldValue +
                                        " and the new one " + e.newValue;
        e.demonstrates = "on an input where " + values + " here, the versions " +
                         (e.outputsAgree ? "behave alike" : "behave differently");
        v.valueEvidence.push_back(std::move(e));
        ++foundCount;
      }
      s.add(!guard);
    }
  }
  if (lines)
    stages.note(std::to_string(foundCount) + " value-evidence input(s) for " +
                std::to_string(lines) + " changed line(s) whose values differ");
}

} // namespace rootline::debug
