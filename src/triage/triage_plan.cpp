// The tests of a triage and its plan: one debug unit per test.
#include "rootline/error.h"
#include "rootline/json_text.h"
#include "rootline/triage.h"

#include <algorithm>
#include <cstdio>

namespace rootline {

using nlohmann::json;

std::vector<TriageTest> readTestSuite(const fs::path &dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw Error("--tests '" + dir.string() + "' is not a directory");
  std::vector<fs::path> dirs;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test-", 0) == 0)
      dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  std::vector<TriageTest> tests;
  for (const fs::path &d : dirs) {
    TriageTest t;
    t.name = d.filename().string();
    if (!fs::is_regular_file(d / "expected.stdout", ec))
      throw Error("--tests: '" + d.string() + "' has no expected.stdout");
    t.expectFile = fs::absolute(d / "expected.stdout");
    if (fs::is_regular_file(d / "stdin", ec))
      t.stdinFile = fs::absolute(d / "stdin");
    if (fs::is_regular_file(d / "test.json", ec)) {
      try {
        json j = json::parse(readFile(d / "test.json"));
        t.args = j.value("args", std::vector<std::string>{});
      } catch (const json::exception &e) {
        throw Error("--tests: '" + (d / "test.json").string() + "' is not valid: " + e.what());
      }
    }
    tests.push_back(std::move(t));
  }
  if (tests.empty())
    throw Error("--tests '" + dir.string() +
                "' holds no test-*/ directories (the layout `rootline explore --out` writes)");
  return tests;
}

WorkPlan triagePlan(const TriageRequest &request, const fs::path &planDir) {
  if (request.tests.empty())
    throw Error("triage needs tests: --tests DIR or --test CMD");
  WorkPlan plan;
  plan.dir = fs::absolute(planDir);
  plan.command = "triage";
  writePlan(plan); // checks the directory before anything is copied into it
  json tests = json::array();
  for (size_t i = 0; i < request.tests.size(); ++i) {
    const TriageTest &t = request.tests[i];
    char id[32];
    std::snprintf(id, sizeof id, "%04zu", i);
    fs::path files = plan.dir / "tests" / id;
    fs::create_directories(files);
    WorkUnit u;
    u.name = t.name;
    u.timeoutSeconds = request.unitTimeoutSeconds;
    u.args = {"debug", "--json"};
    u.args.insert(u.args.end(), request.debugArgs.begin(), request.debugArgs.end());
    if (t.stdinFile) {
      fs::copy_file(*t.stdinFile, files / "stdin", fs::copy_options::overwrite_existing);
      u.args.insert(u.args.end(), {"--stdin", (files / "stdin").string()});
    }
    if (t.expectFile) {
      fs::copy_file(*t.expectFile, files / "expected.stdout", fs::copy_options::overwrite_existing);
      u.args.insert(u.args.end(), {"--expect", (files / "expected.stdout").string()});
    }
    if (!t.testCommand.empty())
      u.args.insert(u.args.end(), {"--test", t.testCommand});
    u.args.insert(u.args.end(), {"--out", (plan.dir / "reports" / id).string()});
    if (!t.args.empty()) {
      u.args.push_back("--");
      u.args.insert(u.args.end(), t.args.begin(), t.args.end());
    }
    plan.units.push_back(std::move(u));
    tests.push_back(t.name);
  }
  plan.state = {{"out", fs::absolute(request.out).string()}, {"tests", tests}};
  writePlan(plan);
  return plan;
}

} // namespace rootline
