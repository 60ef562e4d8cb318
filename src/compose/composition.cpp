// The compose stage: Darwin's queries over the two versions' relevant slice conditions
// (or path conditions), in both directions (DESIGN.md 2.6). Every query's timeout is
// cut to the stage's deadline, and the stage stops when the deadline passes.
#include "compose/debug_stages.h"

#include "rootline/closest_input.h"
#include "rootline/expr_text.h"

#include <llvm/IR/Instructions.h>

#include <algorithm>
#include <set>

namespace rootline::debug {

namespace {

using Clock = Deadline::Clock;

constexpr unsigned kMaxUnsettledInARow = 3;
// After the changed lines' pass found a deviation, the other constraints get at most
// this factor of its time (and at least the minimum): on long runs they are many and
// rarely change the answer.
constexpr double kSecondPassFactor = 2.0, kSecondPassMinSeconds = 10.0;
// The changed lines' pass gets at most this share of the stage.
constexpr double kFirstPassShare = 0.5;
// A query the incremental solver leaves open is asked again of a fresh solver for at
// most this share of the time left (and --solver-timeout).
constexpr double kFreshQueryShare = 0.125;
// The incremental solver's shortest timeout once fresh solvers answer quickly.
constexpr unsigned kRaceMinMs = 20;
// Looking for the alternative input closest to the failing one gets at most this long
// per deviation (and a small share of what is left).
constexpr double kClosestSeconds = 1.5, kClosestShare = 0.05;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

class Composer {
public:
  Composer(z3::context &ctx, const DebugRequest &req, const std::vector<InputVar> &vars,
           DebugReport &report, const Deadline &deadline, Stages &stages)
      : ctx_(ctx), req_(req), vars_(vars), report_(report), deadline_(deadline), stages_(stages) {}

  bool complete() const { return complete_; }

  // Θi = domain ∧ base ∧ seq[0..i) ∧ ¬seq[i]: each satisfiable one names seq[i]'s branch.
  // The most promising first: a first pass asks only the constraints on changed lines
  // (`changed`), a second the rest, with at most kSecondPassFactor times the first
  // pass's time when the first found a deviation. Deviations come back in path order.
  std::vector<std::pair<size_t, z3::model>> deviations(const std::vector<z3::expr> &domain,
                                                       const std::vector<PathConstraint> &base,
                                                       const std::vector<PathConstraint> &seq,
                                                       const std::vector<bool> &changed,
                                                       const std::string &direction) {
    std::vector<std::pair<size_t, z3::model>> out;
    std::vector<bool> asked(seq.size(), false);
    std::vector<z3::expr> prefix(domain.begin(), domain.end());
    uint64_t nodes = domain.size() * 3;
    // A condition too large to compose with whole is cut to its longest prefix within
    // half the node limit: inputs that follow the failing run's path that far (a
    // weaker Θ, whose models the evidence runs still check).
    size_t used = 0;
    for (const auto &c : base) {
      if (nodes + c.nodes > kMaxComposeNodes / 2)
        break;
      prefix.push_back(c.taken), nodes += c.nodes, ++used;
    }
    if (used < base.size()) {
      complete_ = false;
      stages_.cut(direction + ": composed with the first " + std::to_string(used) + " of " +
                  std::to_string(base.size()) + " constraints of the other version (the rest " +
                  "would pass " + std::to_string(kMaxComposeNodes / 2) + " nodes)");
    }
    bool anyChanged = std::find(changed.begin(), changed.end(), true) != changed.end();
    auto t0 = Clock::now();
    if (anyChanged)
      pass(
          prefix, nodes, seq, [&](size_t i) { return changed[i]; }, asked, out,
          deadline_.share(kFirstPassShare), direction + " (changed lines)");
    double first = since(t0);
    double restSeconds = std::max(kSecondPassMinSeconds, kSecondPassFactor * first);
    Deadline rest = deadline_.atMost(restSeconds);
    bool restComplete =
        pass(prefix, nodes, seq, [&](size_t i) { return !asked[i]; }, asked, out, rest, direction);
    if (!restComplete && !deadline_.expired() && rest.expired()) {
      complete_ = false;
      stages_.cut(direction + ": the constraints off the changed lines had their " +
                  std::to_string(static_cast<int>(restSeconds)) + " s");
    }
    std::sort(out.begin(), out.end(),
              [](const auto &a, const auto &b) { return a.first < b.first; });
    return out;
  }

private:
  // One pass over the path: every constraint joins the prefix; those `ask` selects (and
  // not asked before) are queried. False when the pass stopped early.
  template <typename Ask>
  bool pass(const std::vector<z3::expr> &basePrefix, uint64_t baseNodes,
            const std::vector<PathConstraint> &seq, Ask ask, std::vector<bool> &asked,
            std::vector<std::pair<size_t, z3::model>> &out, const Deadline &deadline,
            const std::string &direction) {
    // One incremental solver answers most queries quickly. Each query's negation is
    // guarded by a fresh literal and checked under that assumption, not inside
    // push/pop: Z3 internalises every assertion on push, outside any timeout, which on
    // long product chains takes minutes; a check is bounded by its timeout. A query it
    // cannot settle within a second is asked again of a fresh solver: without
    // assumptions Z3 keeps its non-incremental pipeline (simplify, then bit-blast),
    // which settles remainder and product chains (a GCD loop) many times faster.
    std::vector<z3::expr> prefix = basePrefix;
    uint64_t nodes = baseNodes;
    z3::solver inc(ctx_);
    for (const auto &e : prefix)
      inc.add(e);
    ClosestInput closer(inc, req_.input, vars_);
    unsigned unsettled = 0;
    for (size_t i = 0; i < seq.size() && out.size() < req_.maxCandidates; ++i) {
      if (nodes + seq[i].nodes > kMaxComposeNodes) {
        complete_ = false;
        stages_.cut(direction + ": stopped after " + std::to_string(i) + " of " +
                    std::to_string(seq.size()) + " constraints: the formula outgrew " +
                    std::to_string(kMaxComposeNodes) + " nodes");
        return false;
      }
      if (ask(i)) {
        if (deadline.expired()) {
          if (deadline_.expired() || &deadline != &deadline_) {
            complete_ = false;
            stages_.cut(direction + ": " + std::to_string(i) + " of " + std::to_string(seq.size()) +
                        " constraints asked before the deadline");
          }
          return false;
        }
        asked[i] = true;
        stages_.update(direction + ", constraint " + std::to_string(i + 1) + " of " +
                       std::to_string(seq.size()) + ", " + std::to_string(out.size()) +
                       " deviation(s)");
        ++report_.solverCalls;
        report_.formulaNodes += nodes + seq[i].nodes + 1;
        auto t0 = Clock::now();
        unsigned quickMs = deadline.clampMs(std::min(1000u, req_.solverTimeoutMs));
        // After a fresh solver settled quickly what the incremental one could not, the
        // incremental solver is tried once more, for only as long as that fresh query
        // took: on a long prefix it settles the next queries at once (mawk) where a
        // fresh solver would take the whole prefix in again each time. If it fails that
        // try too (Z3 may overrun a short timeout while it bit-blasts a `%` chain,
        // b4_argv_base), later queries go to a fresh solver directly.
        unsigned incMs = solvers_ == Solvers::TryIncremental
                             ? std::min(quickMs, std::max(kRaceMinMs, lastFreshMs_))
                             : quickMs;
        closer.setTimeout(incMs);
        z3::expr guard = ctx_.bool_const(("rl!q" + std::to_string(queries_++)).c_str());
        inc.add(z3::implies(guard, !seq[i].taken));
        z3::expr_vector assumptions(ctx_);
        assumptions.push_back(guard);
        std::optional<z3::model> model;
        z3::check_result r = z3::unknown;
        if (auto evaluated = closer.nearSeedIntegers(assumptions, !seq[i].taken, deadline)) {
          // Products and remainders of unknowns: a model found by evaluation, before the
          // solver takes seconds over them.
          r = z3::sat;
          model = std::move(evaluated);
        } else if (solvers_ == Solvers::FreshOnly) {
          // r stays unknown: the fresh solver below answers.
        } else if (solvers_ == Solvers::TryIncremental) {
          r = inc.check(assumptions); // no float anchoring in this try
          if (r == z3::unknown)
            solvers_ = Solvers::FreshOnly;
        } else if (auto anchored = closer.nearSeedFloats(assumptions, !seq[i].taken, deadline)) {
          // A float query: first with the failing input's float values fixed but one.
          r = z3::sat;
          model = req_.closestInputs ? closer.closest(assumptions, *anchored,
                                                      closestDeadline(deadline), !seq[i].taken)
                                     : *anchored;
        } else {
          closer.setTimeout(incMs); // nearSeedFloats may have set its own
          r = inc.check(assumptions);
        }
        if (r == z3::sat && !model)
          model = req_.closestInputs ? closer.closest(assumptions, inc.get_model(),
                                                      closestDeadline(deadline), !seq[i].taken)
                                     : inc.get_model();
        inc.add(!guard);
        bool settled = r != z3::unknown;
        if (r == z3::unknown && !deadline.expired()) {
          z3::solver fresh(ctx_);
          z3::params p(ctx_);
          p.set("timeout",
                deadline.clampMs(std::min<unsigned>(
                    req_.solverTimeoutMs,
                    static_cast<unsigned>(std::max(1.0, kFreshQueryShare * deadline.remaining()) *
                                          1000))));
          fresh.set(p);
          for (const auto &e : prefix)
            fresh.add(e);
          fresh.add(!seq[i].taken);
          auto freshStart = Clock::now();
          z3::check_result again = fresh.check();
          settled = again != z3::unknown;
          // Fresh while it settles within the quick timeout: on a long path each fresh
          // solver takes in the whole prefix again, and the incremental one is cheaper.
          double freshMs = since(freshStart) * 1000;
          lastFreshMs_ = static_cast<unsigned>(freshMs);
          if (!settled || freshMs >= quickMs)
            solvers_ = Solvers::Incremental;
          else if (solvers_ == Solvers::Incremental)
            solvers_ = Solvers::TryIncremental;
          if (again == z3::sat && req_.closestInputs) {
            ClosestInput freshCloser(fresh, req_.input, vars_);
            model = freshCloser.closest(z3::expr_vector(ctx_), fresh.get_model(),
                                        closestDeadline(deadline), !seq[i].taken);
          } else if (again == z3::sat) {
            model = fresh.get_model();
          }
        }
        report_.solverSeconds += since(t0);
        if (model)
          out.push_back({i, *model});
        // Queries the solver cannot settle come in runs (a chain of products grows
        // with every step): after a few in a row the pass stops, leaving the time to
        // the evidence runs.
        unsettled = settled ? 0 : unsettled + 1;
        if (unsettled >= kMaxUnsettledInARow) {
          complete_ = false;
          stages_.cut(direction + ": stopped after " + std::to_string(i + 1) + " of " +
                      std::to_string(seq.size()) +
                      " constraints: the solver settled none of the last " +
                      std::to_string(kMaxUnsettledInARow) + " queries within their timeouts");
          return false;
        }
      }
      prefix.push_back(seq[i].taken);
      inc.add(seq[i].taken);
      nodes += seq[i].nodes;
    }
    return true;
  }

  static Deadline closestDeadline(const Deadline &d) {
    return d.atMost(std::min(kClosestSeconds, 0.25 + kClosestShare * d.remaining()));
  }

  z3::context &ctx_;
  const DebugRequest &req_;
  const std::vector<InputVar> &vars_; // both versions' inputs
  DebugReport &report_;
  const Deadline &deadline_;
  Stages &stages_;
  bool complete_ = true;
  unsigned queries_ = 0;
  // Which solver asks first. Once the incremental solver has run out its time on a
  // query that a fresh solver then settled within that time, the formula may be of the
  // kind the fresh pipeline settles and the incremental one does not (a `%` by a value
  // read from the input): the incremental solver gets one short try (TryIncremental),
  // and if that fails too, later queries in every pass go to a fresh solver directly
  // (FreshOnly), for as long as the fresh solver stays that quick.
  enum class Solvers { Incremental, TryIncremental, FreshOnly };
  Solvers solvers_ = Solvers::Incremental;
  unsigned lastFreshMs_ = 0;
};

// The changed line closest to a branch instance along its data dependences (operands
// and the memory they were loaded from, not control): a deviating branch in unchanged
// code whose condition a changed line computes (`if (is_large(v))` over a changed
// `return v > 10;`) points at that line.
std::optional<uint64_t> changedDefinitionBehind(const Version &v, uint64_t branch, Diffs &diffs) {
  const DynamicTrace &t = v.trace.dynamic;
  std::vector<uint64_t> work{branch};
  std::set<uint64_t> seen{branch};
  std::optional<uint64_t> best;
  InstanceDeps r;
  constexpr size_t kMaxVisited = 20000;
  while (!work.empty() && seen.size() < kMaxVisited) {
    uint64_t i = work.back();
    work.pop_back();
    if (i != branch) {
      SourceLocation loc = ModuleIndex::locationOf(v.index->instruction(t.records.id(i)));
      if (loc.valid() && diffs.changed(relativeTo(loc.path(), v.root), v.name == "new", loc.line)) {
        if (!best || i > *best)
          best = i;
        continue; // the nearest changed definition on this chain
      }
    }
    t.records.decode(i, r);
    for (uint64_t d : r.defs) {
      if (d != kNoDef && d < t.records.size() && seen.insert(d).second)
        work.push_back(d);
    }
  }
  return best;
}

// "the branch at x.c:3 ..." after a possessive: "the old version's branch at x.c:3".
std::string withoutArticle(const std::string &s) { return s.starts_with("the ") ? s.substr(4) : s; }

} // namespace

Composition compose(const DebugRequest &req, z3::context &ctx, const Version &oldV,
                    const Version &newV, Diffs &diffs, const Deadline &deadline,
                    DebugReport &report, Stages &stages) {
  Composition result;
  std::vector<z3::expr> domain = oldV.trace.symbolic.domain;
  domain.insert(domain.end(), newV.trace.symbolic.domain.begin(), newV.trace.symbolic.domain.end());
  std::vector<InputVar> vars = inputsOfBoth(oldV, newV);
  DisplayNames names = displayNamesOf(vars);
  Composer composer(ctx, req, vars, report, deadline, stages);
  auto fromDeviations = [&](const Version &where, const std::vector<PathConstraint> &seq,
                            const std::vector<std::pair<size_t, z3::model>> &found,
                            const std::string &kind) {
    for (const auto &[i, model] : found) {
      DebugCandidate c = candidateAt(where, seq[i].inst, kind, diffs);
      z3::expr taken = seq[i].taken.simplify();
      c.condition = readableExpr(taken, &names);
      c.conditionSmt = readableExpr(taken);
      c.hasAlternative = true;
      c.alternative = applyModel(req.input, vars, model);
      c.alternativeChanges = describeInputChanges(req.input, vars, model);
      std::string at = c.file + ":" + std::to_string(c.line);
      // The condition that held on the failing run, when short enough to read.
      std::string flip = c.condition.size() <= 80 ? "`" + c.condition + "` false at " + at
                                                  : "the branch at " + at + " go the other way";
      // The old version's branch: code the new version lacks only where the change
      // touched it; an unchanged branch both versions have took another way on other data.
      if (kind == "missing code" && !c.inChangedRegion)
        c.kind = "branch deviation";
      c.demonstrates =
          kind != "missing code"
              ? "the alternative input makes " + flip + ", off the failing run's path"
          : c.inChangedRegion
              ? "the alternative input makes the old version's " + withoutArticle(flip) +
                    ", into code the new version lacks"
              : "the alternative input follows the new run's path and makes the old version's " +
                    withoutArticle(flip) + " (a line the change left as it was)";
      c.distance = static_cast<unsigned>(seq.size() - 1 - i);
      if (!c.inChangedRegion)
        if (auto def = changedDefinitionBehind(where, seq[i].instance, diffs)) {
          const llvm::Instruction *inst =
              where.index->instruction(where.trace.dynamic.records.id(*def));
          DebugCandidate behind = candidateAt(where, inst, "changed computation", diffs);
          behind.condition = c.condition;
          behind.conditionSmt = c.conditionSmt;
          behind.hasAlternative = true;
          behind.alternative = c.alternative;
          behind.alternativeChanges = c.alternativeChanges;
          behind.distance = c.distance;
          behind.reasons.push_back("computes the condition of the branch at " + at);
          behind.demonstrates = "the alternative input makes the branch at " + at +
                                ", whose condition this line computes, go the other way";
          result.candidates.push_back(std::move(behind));
        }
      result.candidates.push_back(std::move(c));
    }
  };
  auto onChangedLines = [&](const Version &v, const std::vector<PathConstraint> &seq) {
    std::vector<bool> changed(seq.size());
    for (size_t i = 0; i < seq.size(); ++i) {
      SourceLocation loc = ModuleIndex::locationOf(seq[i].inst);
      changed[i] =
          loc.valid() && diffs.changed(relativeTo(loc.path(), v.root), v.name == "new", loc.line);
    }
    return changed;
  };
  auto found = composer.deviations(domain, oldV.condition, newV.condition,
                                   onChangedLines(newV, newV.condition), "new version");
  if (!found.empty()) {
    result.direction = "inputs like the failing one leave its path in the new version";
    fromDeviations(newV, newV.condition, found, "branch deviation");
  } else if (auto mirror = composer.deviations(domain, newV.condition, oldV.condition,
                                               onChangedLines(oldV, oldV.condition), "old version");
             !mirror.empty()) {
    result.direction = "the old version takes branches the new version lacks";
    fromDeviations(oldV, oldV.condition, mirror, "missing code");
  } else {
    result.direction = "same partition in both versions: the value is computed differently";
  }
  bool complete = composer.complete() && !deadline.expired();
  if (!complete && result.candidates.empty())
    result.direction = "undecided: the composition did not finish within its budget";
  return result;
}

} // namespace rootline::debug
