// Passing trials confirmed by the whole test command (src/compose/whole_test.cpp).
#include "compose/debug_stages.h"
#include "rootline/error.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::debug;

namespace {

// With --test: one edit that made the failing process pass, the whole test not yet run.
RevertEvidence oneUnconfirmedEdit() {
  RevertEvidence ev;
  ev.processOnly = true;
  RevertEvidence::Edit edit;
  edit.result = "passes";
  edit.files = {{"f.c", "edit"}};
  ev.edits = {edit};
  return ev;
}

} // namespace

TEST_CASE("a passing trial's sentence says what passed: the test, or with --test the failing "
          "process unless the whole test ran on it",
          "[revert]") {
  CHECK(passPhrase(false, "") == "makes the test pass");
  CHECK(passPhrase(true, "passes") == "makes the test pass");
  CHECK(passPhrase(true, "") == "makes the failing process behave as in the old version");
  CHECK(passPhrase(true, "fails") ==
        "makes the failing process behave as in the old version, but the test still fails");
}

TEST_CASE("the whole test runs on passing trials in the order they rank, then on the other "
          "edits, then the other reverts, narrowest first, and an edit it fails repairs nothing",
          "[revert]") {
  const std::string oldText = "int f(int x) {\n  return x;\n}\n";
  const std::string newText = "int f(int x) {\n  int y = x;\n  return y + 1;\n}\n";
  SemanticDiff diff = diffSemantically(oldText, newText);
  REQUIRE(diff.changes.hunks.size() == 1);
  RevertEvidence ev;
  ev.processOnly = true;
  ev.files.push_back({"f.c", "f.c", &diff, newText});
  RevertEvidence::Unit group, line;
  group.hunks = line.hunks = {{0, 0}};
  group.label = "f.c:2-3";
  line.label = "f.c:3";
  line.newLine = 3;
  group.files = {{"f.c", "group"}};
  line.files = {{"f.c", "line"}};
  group.alone = line.alone = "passes";
  group.trial = 0;
  line.trial = 1;
  ev.units = {group, line};
  ev.groups = 1;
  ev.fixing = {0, 1};
  RevertEvidence::Edit edit;
  edit.file = "f.c";
  edit.line = 3;
  edit.from = "+";
  edit.to = "-";
  edit.source = "return y - 1;";
  edit.result = "passes";
  edit.files = {{"f.c", "edit"}};
  edit.trial = 2;
  ev.edits = {edit};
  DebugReport report;
  report.reverts.resize(3);
  std::vector<std::string> asked;
  DebugRequest req;
  req.wholeTestSeconds = 0.1;
  req.runWholeTest = [&](const std::map<std::string, std::string> &files, double) {
    asked.push_back(files.at("f.c"));
    return std::string(files.at("f.c") == "edit" ? "fails" : "passes");
  };
  Stages stages(report, nullptr);
  stages.begin("whole test");
  REQUIRE(anyToConfirm(ev));
  // A ranking that puts the group's line first: its unit is confirmed first.
  std::vector<DebugCandidate> ranked(1);
  ranked[0].version = "new";
  ranked[0].file = "f.c";
  ranked[0].line = 2;
  ranked[0].revertUnit = "f.c:2-3";
  confirmFixes(req, ev, ranked, Deadline::in(60), report, stages);
  CHECK(asked == std::vector<std::string>{"group", "edit", "line"});
  CHECK(ev.edits[0].result == "process only");
  CHECK(ev.edits[0].wholeTest == "fails");
  CHECK(report.reverts[2].wholeTest == "fails");
  CHECK(ev.units[1].wholeTest == "passes");
  CHECK(report.reverts[1].wholeTest == "passes");
  CHECK_FALSE(anyToConfirm(ev));

  // The edit's line: no repair, a sentence that says what it did.
  std::vector<DebugCandidate> candidates(1);
  candidates[0].version = "new";
  candidates[0].file = "f.c";
  candidates[0].line = 3;
  applyRevertEvidence(ev, candidates, req);
  CHECK(candidates[0].edit.empty());
  CHECK(candidates[0].processOnlyEdit ==
        "changing `+` to `-` at f.c:3 (`return y - 1;`) alone makes the failing process behave "
        "as in the old version, but the test still fails");
  CHECK(candidates[0].revert == "fixes");
  CHECK(candidates[0].revertDetail == "reverting f.c:3 alone makes the test pass");
}

TEST_CASE("the whole test is not run when its time does not fit what is left, and the sentence "
          "then claims only the failing process",
          "[revert]") {
  RevertEvidence ev = oneUnconfirmedEdit();
  DebugReport report;
  DebugRequest req;
  req.wholeTestSeconds = 30; // the test took 30 s natively; 2 s are left
  unsigned runs = 0;
  req.runWholeTest = [&](const std::map<std::string, std::string> &, double) {
    ++runs;
    return std::string("passes");
  };
  Stages stages(report, nullptr);
  stages.begin("whole test");
  confirmFixes(req, ev, {}, Deadline::in(2), report, stages);
  stages.end();
  CHECK(runs == 0);
  CHECK(ev.edits[0].result == "passes");
  CHECK(ev.edits[0].wholeTest.empty());
  REQUIRE_FALSE(report.stages.empty());
  CHECK(report.stages.back().note.find(
            "the whole test (30 s natively) ran on 0 of the 1 trial(s)") != std::string::npos);
}

TEST_CASE("a whole test that cannot run (its scratch copy failed) leaves the trial unconfirmed "
          "instead of ending the job",
          "[revert]") {
  DebugRequest req;
  req.wholeTestSeconds = 0.1;
  req.runWholeTest = [](const std::map<std::string, std::string> &, double) -> std::string {
    throw Error("cannot copy the built tree");
  };
  CHECK(wholeTestVerdict(req, {{"f.c", "x"}}, Deadline::in(60)).empty());
}

TEST_CASE("a whole test timed by a traced run is given that time, no margin on top, and the "
          "note says the time was traced",
          "[revert]") {
  // A native 20 s run wants 31 s (one and a half times, and a second), a traced 20 s run
  // 21 s, since a native run takes less than a traced one; it starts with 11 s left.
  unsigned runs = 0;
  double given = 0;
  auto confirm = [&](bool traced, double secondsLeft) {
    runs = 0;
    RevertEvidence ev = oneUnconfirmedEdit();
    DebugReport report;
    DebugRequest req;
    req.wholeTestSeconds = 20;
    req.wholeTestTimedTraced = traced;
    req.runWholeTest = [&](const std::map<std::string, std::string> &, double timeout) {
      ++runs;
      given = timeout;
      return std::string("passes");
    };
    Stages stages(report, nullptr);
    stages.begin("whole test");
    confirmFixes(req, ev, {}, Deadline::in(secondsLeft), report, stages);
    stages.end();
    return report.stages.back().note;
  };
  std::string note = confirm(false, 30);
  CHECK(runs == 0);
  CHECK(note.find("the whole test (20 s natively) ran on 0 of the 1 trial(s)") !=
        std::string::npos);
  confirm(true, 30);
  CHECK(runs == 1);
  CHECK(given == Approx(21));
  // A native run takes less than a traced one: with half the traced time (and the second)
  // left, it starts and gets what is left.
  confirm(true, 15);
  CHECK(runs == 1);
  CHECK(given <= 15);
  CHECK(given > 14);
  // An edit confirmed in the revert stage still waits for the whole traced time: a run
  // stopped there would take the next trials' time.
  {
    DebugRequest req;
    req.wholeTestSeconds = 20;
    req.wholeTestTimedTraced = true;
    runs = 0;
    req.runWholeTest = [&](const std::map<std::string, std::string> &, double) {
      ++runs;
      return std::string("passes");
    };
    CHECK(wholeTestVerdict(req, {{"f.c", "x"}}, Deadline::in(15)).empty());
    CHECK(runs == 0);
    CHECK(wholeTestVerdict(req, {{"f.c", "x"}}, Deadline::in(15), true) == "passes");
    CHECK(runs == 1);
  }
  note = confirm(true, 10);
  CHECK(runs == 0);
  CHECK(note.find("the whole test (20 s traced) ran on 0 of the 1 trial(s)") != std::string::npos);
}
