// rootline triage: many failing tests between two versions, each debugged as one work
// unit, grouped by root cause in one report (docs/triage.md).
#pragma once

#include "rootline/cluster.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rootline {

// One test: a program input and the output it must print, or a project's test command.
struct TriageTest {
  std::string name;
  std::optional<fs::path> stdinFile, expectFile;
  std::vector<std::string> args;
  std::string testCommand; // --test: the project's own test (then no stdin/expect)
};

// The tests an `explore --out` directory holds: test-*/stdin, expected.stdout and the
// arguments in test.json. Throws Error naming the problem when there are none.
std::vector<TriageTest> readTestSuite(const fs::path &dir);

struct TriageRequest {
  // The debug options every unit shares: the versions (--old/--new or --repo/--good/
  // --bad, absolute paths), the recipe or --build, --budget, --timeout, ...
  std::vector<std::string> debugArgs;
  std::vector<TriageTest> tests;
  double unitTimeoutSeconds = 0; // the unit's process is killed after this
  fs::path out;                  // where merge writes the report
};

// The plan: one `debug` unit per test, with the test's files copied into the plan so a
// unit needs nothing but the plan directory (and the versions) on its node.
WorkPlan triagePlan(const TriageRequest &request, const fs::path &planDir);

// The root cause a group of failing tests shares.
struct TriageGroup {
  nlohmann::json cause; // {"file", "line", "version", "function", "kind", "source"}; null if none
  std::string sharedBy; // "rank-1 line", "minimal revert set", "first divergence"; "" alone
  std::vector<std::string> tests;
  std::string representative; // the test whose evidence is shown
  nlohmann::json evidence;    // the representative's rank-1 candidate, failure, divergence
  size_t representativeUnit = 0;
  std::vector<std::string> files; // what the merge copied into --out: group-N/unit-test/...
};

struct TriageReport {
  std::string oldLabel, newLabel;
  std::vector<TriageGroup> groups; // largest first, then by first test
  std::vector<std::string> passing;
  nlohmann::json failedUnits = nlohmann::json::array(); // {"unit", "test", "why"}
  size_t tests = 0;
};

// Groups the round's results (in unit order: the answer never depends on the order the
// units ran in). Units without a result are named in failedUnits.
TriageReport mergeTriage(const WorkPlan &plan);

// Every file of the report directory: report.json/.md/.sarif/.html, and per group
// group-N/ with its representative's debug report (report.md, report.json) and its
// differential unit test or local Darwin harness. Fills each group's `files`.
std::vector<std::pair<std::string, std::string>> triageReportFiles(const WorkPlan &plan,
                                                                   TriageReport &report);

nlohmann::json triageJson(const TriageReport &report);
std::string triageMarkdown(const TriageReport &report);
nlohmann::json triageSarif(const TriageReport &report);
std::string triageHtml(const TriageReport &report);
std::string triageSummary(const TriageReport &report);

} // namespace rootline
