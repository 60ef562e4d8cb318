// The parallel bisection (docs/bisect.md "Parallel"): each round probes K commits spread
// over the range that is left, one `bisect --check` unit each, so N commits take
// ceil(log_{K+1} N) rounds. The search state lives in the plan, so `rootline merge` can
// advance it as well as the command that started it.
#include "rootline/bisect.h"
#include "rootline/error.h"

namespace rootline {

using nlohmann::json;

namespace {

json stepJson(const CommitVerdict &v, unsigned round) {
  return {{"commit", v.commit.hash}, {"verdict", verdictName(v.verdict)}, {"reason", v.reason},
          {"build", buildKind(v)},   {"outcome", v.run.outcome},          {"seconds", v.seconds},
          {"round", round}};
}

CommitVerdict stepVerdict(const Repository &repo, const json &j) {
  CommitVerdict v;
  v.commit = repo.commit(j.value("commit", ""));
  std::string verdict = j.value("verdict", "skip");
  v.verdict = verdict == "good" ? Verdict::Good : verdict == "bad" ? Verdict::Bad : Verdict::Skip;
  v.reason = j.value("reason", "");
  std::string build = j.value("build", "none");
  v.built = build != "none";
  v.buildCached = build == "cached";
  v.run.outcome = j.value("outcome", "");
  v.seconds = j.value("seconds", 0.0);
  return v;
}

std::set<long> skippedOf(const json &state) {
  std::set<long> s;
  for (const auto &i : state.value("skipped", json::array()))
    s.insert(i.get<long>());
  return s;
}

// The units of the state's next round; none when the search is over.
std::vector<WorkUnit> roundUnits(const json &state) {
  std::vector<long> probes = spreadProbes(state["lo"].get<long>(), state["hi"].get<long>(),
                                          skippedOf(state), state.value("k", 1u));
  std::vector<WorkUnit> units;
  const json &range = state["range"];
  for (long p : probes) {
    std::string hash = range[static_cast<size_t>(p)].get<std::string>();
    WorkUnit u;
    u.name = hash.substr(0, 12);
    u.args = {"bisect", "--json", "--check", hash};
    for (const auto &a : state["check_args"])
      u.args.push_back(a.get<std::string>());
    u.timeoutSeconds = state.value("unit_timeout", 0.0);
    units.push_back(std::move(u));
  }
  return units;
}

// Writes the plan for the state's next round, or marks the state done.
WorkPlan nextRound(const fs::path &dir, unsigned round, json state) {
  WorkPlan plan;
  plan.dir = dir;
  plan.command = "bisect";
  plan.round = round;
  plan.units = roundUnits(state);
  state["done"] = plan.units.empty();
  plan.state = state;
  writePlan(plan);
  return plan;
}

} // namespace

WorkPlan parallelBisectPlan(const Repository &repo, const BisectEnds &ends,
                            const ParallelBisectRequest &request) {
  json steps = json::array();
  for (const auto &s : ends.steps)
    steps.push_back(stepJson(s, 0));
  json state = {{"repo", repo.root().string()},
                {"good", ends.good.hash},
                {"bad", ends.bad.hash},
                {"range", ends.range},
                {"lo", -1},
                {"hi", static_cast<long>(ends.range.size()) - 1},
                {"skipped", json::array()},
                {"k", std::max(1u, request.parallel)},
                {"check_args", request.checkArgs},
                {"unit_timeout", request.unitTimeoutSeconds},
                {"out", request.out.empty() ? json(nullptr) : json(request.out.string())},
                {"steps", steps}};
  return nextRound(fs::absolute(request.planDir), 1, state);
}

std::optional<WorkPlan> advanceParallelBisect(const Repository &repo, const WorkPlan &plan) {
  if (plan.command != "bisect")
    throw Error("--plan '" + plan.dir.string() + "' is a " + plan.command + " plan, not bisect");
  json state = plan.state;
  if (state.value("done", false))
    return std::nullopt;
  long lo = state["lo"].get<long>(), hi = state["hi"].get<long>();
  std::set<long> skipped = skippedOf(state);
  const json &range = state["range"];
  std::vector<std::pair<long, CommitVerdict>> probed;
  for (size_t i = 0; i < plan.units.size(); ++i) {
    const auto &args = plan.units[i].args;
    std::string hash = args.size() > 3 ? args[3] : "";
    long index = -1;
    for (size_t k = 0; k < range.size(); ++k)
      if (range[k].get<std::string>() == hash)
        index = static_cast<long>(k);
    if (index < 0)
      throw Error("--plan '" + plan.dir.string() + "': unit " + std::to_string(i) +
                  " probes a commit outside the range");
    std::optional<UnitResult> r = readUnitResult(plan, i);
    CommitVerdict v;
    v.commit = repo.commit(hash);
    if (r && r->output.is_object() && r->output.contains("verdict")) {
      json step = r->output;
      step["commit"] = hash;
      v = stepVerdict(repo, step);
    } else { // no answer: like a commit that cannot be tested, it decides nothing
      v.verdict = Verdict::Skip;
      v.reason = "the unit gave no answer" + (r && !r->error.empty() ? ": " + r->error
                                              : r                    ? " (" + r->outcome + ")"
                                                                     : "");
    }
    probed.push_back({index, v});
  }
  // The first bad probe bounds the range from above; the last good one below it, from
  // below. A good probe above a bad one (a test that is not monotonic) moves nothing.
  for (const auto &[i, v] : probed)
    if (v.verdict == Verdict::Bad)
      hi = std::min(hi, i);
  for (const auto &[i, v] : probed)
    if (v.verdict == Verdict::Good && i < hi)
      lo = std::max(lo, i);
    else if (v.verdict == Verdict::Skip)
      skipped.insert(i);
  for (const auto &[i, v] : probed)
    state["steps"].push_back(stepJson(v, plan.round));
  state["lo"] = lo;
  state["hi"] = hi;
  state["skipped"] = skipped;
  WorkPlan next = nextRound(plan.dir, plan.round + 1, state);
  if (next.units.empty())
    return std::nullopt;
  return next;
}

BisectResult parallelBisectResult(const Repository &repo, const WorkPlan &plan) {
  const json &state = plan.state;
  BisectResult result;
  result.good = repo.commit(state.value("good", ""));
  result.bad = repo.commit(state.value("bad", ""));
  const json &range = state["range"];
  result.rangeSize = range.size();
  result.parallel = state.value("k", 1u);
  unsigned rounds = 0;
  for (const auto &s : state["steps"]) {
    result.steps.push_back(stepVerdict(repo, s));
    rounds = std::max(rounds, s.value("round", 0u));
  }
  result.rounds = rounds;
  long lo = state["lo"].get<long>(), hi = state["hi"].get<long>();
  for (long i : skippedOf(state))
    if (i > lo && i < hi)
      result.possibleFirstBad.push_back(repo.commit(range[static_cast<size_t>(i)]));
  CommitInfo last = repo.commit(range[static_cast<size_t>(hi)]);
  if (!state.value("done", false))
    return result; // not over: no answer yet
  if (result.possibleFirstBad.empty())
    result.firstBad = last;
  else
    result.possibleFirstBad.push_back(last);
  return result;
}

std::string parallelBisectParent(const WorkPlan &plan) {
  long lo = plan.state["lo"].get<long>();
  return lo >= 0 ? plan.state["range"][static_cast<size_t>(lo)].get<std::string>()
                 : plan.state.value("good", "");
}

} // namespace rootline
