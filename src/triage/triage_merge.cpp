// Merging a triage: each failing test's debug report, grouped by the root cause the
// tests share (docs/triage.md "Groups").
#include "rootline/error.h"
#include "rootline/triage.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace rootline {

using nlohmann::json;

namespace {

// Union-find over the failing tests: tests sharing any key end in one group.
struct Groups {
  std::vector<size_t> parent;
  explicit Groups(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  size_t find(size_t i) { return parent[i] == i ? i : parent[i] = find(parent[i]); }
  void join(size_t a, size_t b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent[std::max(a, b)] = std::min(a, b); // the earliest test names the group
  }
};

std::string lineKey(const json &where) {
  return where.value("version", "") + ":" + where.value("file", "") + ":" +
         std::to_string(where.value("line", 0u));
}

// The most changed lines a fixing revert unit may hold for the tests it fixes to be one
// group (triage.md, "Groups").
constexpr unsigned kSharedUnitLines = 4;

// What one failing test's report says about its cause.
struct FailingTest {
  size_t unit;
  std::string name;
  json report;
  json rank1;                                            // the rank-1 candidate, or null
  std::vector<std::pair<std::string, std::string>> keys; // (what is shared, key)
};

FailingTest failingTest(size_t unit, const std::string &name, const json &report) {
  FailingTest t{unit, name, report, nullptr, {}};
  const json &cands = report.value("candidates", json::array());
  if (!cands.empty()) {
    t.rank1 = cands.front();
    t.keys.push_back({"rank-1 line", "line:" + lineKey(t.rank1)});
  }
  // Tests whose rank-1 lines a revert of the same small unit fixes share that cause,
  // whichever of its lines each one's evidence put first (`if (a > 100)`, or its
  // `return a + b + 1;`, whose `1` → `0` passes). A large unit holds several causes.
  if (t.rank1.is_object() && t.rank1.contains("revert") && t.rank1["revert"].is_object()) {
    const json &r = t.rank1["revert"];
    if (r.value("result", "") == "fixes" && !r.value("unit", "").empty() &&
        r.value("lines", 0u) <= kSharedUnitLines)
      t.keys.push_back({"fixing revert", "unit:" + r.value("unit", "")});
  }
  const json &revert = report.value("minimal_revert", json::array());
  if (revert.is_array() && !revert.empty())
    t.keys.push_back({"minimal revert set", "revert:" + revert.dump()});
  // A first divergence joins tests only when they have no rank-1 line: two causes may
  // well be reached through one shared line first.
  const json &div = report.value("alignment", json::object()).value("first_divergence", json());
  if (t.rank1.is_null() && div.is_object())
    t.keys.push_back({"first divergence", "divergence:" + lineKey(div)});
  return t;
}

json causeOf(const json &candidate) {
  if (candidate.is_null())
    return nullptr;
  return {
      {"file", candidate.value("file", "")},       {"line", candidate.value("line", 0u)},
      {"version", candidate.value("version", "")}, {"function", candidate.value("function", "")},
      {"kind", candidate.value("kind", "")},       {"source", candidate.value("source", "")}};
}

json evidenceOf(const FailingTest &t) {
  json e = {{"failure", t.report.value("failure", json::object()).value("summary", "")}};
  const json &div = t.report.value("alignment", json::object()).value("first_divergence", json());
  e["first_divergence"] = div.is_object() ? json(div.value("text", "")) : json(nullptr);
  e["minimal_revert"] = t.report.value("minimal_revert", json::array());
  if (t.rank1.is_object())
    for (const char *k :
         {"evidence_level", "runnable_evidence", "reasons", "condition", "alternative_changes",
          "revert", "edit", "unit_test", "local_alternative"})
      if (t.rank1.contains(k) && !t.rank1[k].is_null())
        e[k] = t.rank1[k];
  return e;
}

// The group's cause: the rank-1 line most of its tests name (the earliest on a tie).
json groupCause(const std::vector<const FailingTest *> &members) {
  std::map<std::string, size_t> votes; // rank-1 line → tests naming it
  const FailingTest *best = nullptr;
  size_t bestCount = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i]->rank1.is_null())
      continue;
    size_t n = ++votes[lineKey(members[i]->rank1)];
    if (n > bestCount) {
      bestCount = n;
      best = members[i];
    }
  }
  return best ? causeOf(best->rank1) : json(nullptr);
}

} // namespace

TriageReport mergeTriage(const WorkPlan &plan) {
  if (plan.command != "triage")
    throw Error("--plan '" + plan.dir.string() + "' is a " + plan.command + " plan, not triage");
  TriageReport report;
  report.tests = plan.units.size();
  std::vector<FailingTest> failing;
  for (size_t i = 0; i < plan.units.size(); ++i) {
    const std::string &name = plan.units[i].name;
    std::optional<UnitResult> r = readUnitResult(plan, i);
    if (!r) {
      report.failedUnits.push_back(
          {{"unit", i}, {"test", name}, {"why", "no result: the unit did not finish"}});
      continue;
    }
    const json &out = r->output;
    if (out.is_object() && out.value("kind", json()) == kErrorTestPasses) {
      report.passing.push_back(name);
      continue;
    }
    if (out.is_object() && out.value("schema", "") == "rootline.debug/1" &&
        (r->exitCode == ExitOk || r->exitCode == ExitFailure)) {
      if (report.oldLabel.empty()) {
        report.oldLabel = out["versions"].value("old", "");
        report.newLabel = out["versions"].value("new", "");
      }
      failing.push_back(failingTest(i, name, out));
      continue;
    }
    std::string why = out.is_object() && out.contains("error") ? out.value("error", "")
                      : !r->error.empty()                      ? r->error
                                          : "the unit ended with " + r->outcome;
    report.failedUnits.push_back({{"unit", i}, {"test", name}, {"why", why}});
  }
  Groups groups(failing.size());
  std::map<std::string, size_t> owner;
  // What joined each group first: one test alone shares nothing.
  std::vector<std::string> sharedBy(failing.size());
  for (size_t i = 0; i < failing.size(); ++i)
    for (const auto &[what, key] : failing[i].keys) {
      auto [it, fresh] = owner.emplace(key, i);
      if (fresh || groups.find(it->second) == groups.find(i))
        continue;
      std::string a = sharedBy[groups.find(it->second)], b = sharedBy[groups.find(i)];
      groups.join(it->second, i);
      sharedBy[groups.find(i)] = !a.empty() ? a : !b.empty() ? b : what;
    }
  std::map<size_t, std::vector<const FailingTest *>> members;
  for (size_t i = 0; i < failing.size(); ++i)
    members[groups.find(i)].push_back(&failing[i]);
  for (const auto &[root, tests] : members) {
    TriageGroup g;
    g.cause = groupCause(tests);
    g.sharedBy = sharedBy[root];
    for (const FailingTest *t : tests)
      g.tests.push_back(t->name);
    // The evidence of the first test whose rank-1 line is the group's cause.
    const FailingTest *rep = tests.front();
    for (const FailingTest *t : tests)
      if (!g.cause.is_null() && t->rank1.is_object() && lineKey(t->rank1) == lineKey(g.cause)) {
        rep = t;
        break;
      }
    g.representative = rep->name;
    g.representativeUnit = rep->unit;
    g.evidence = evidenceOf(*rep);
    report.groups.push_back(std::move(g));
  }
  std::stable_sort(
      report.groups.begin(), report.groups.end(),
      [](const TriageGroup &a, const TriageGroup &b) { return a.tests.size() > b.tests.size(); });
  return report;
}

} // namespace rootline
