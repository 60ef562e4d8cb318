// Passing trials run through the whole test command (docs/debug.md, "Revert evidence"):
// with --test a trial runs the test's failing process alone, and that process behaving
// as in the old version is all it shows. The whole test on the same rebuilt tree tells
// whether the trial makes the test pass, or fixes that process and breaks others.
#include "compose/debug_stages.h"

#include <algorithm>
#include <exception>
#include <set>

namespace rootline::debug {

namespace {

// A test run's time may vary; less than this much more than its native run is not tried.
// A traced run's time already errs long.
constexpr double kTestTimeMargin = 1.5, kTracedTestTimeMargin = 1.0, kTestTimeSlack = 1.0;
// A traced run is slower than a native one by a factor that depends on the program
// (about 2 on diffstat's `make check` of 440 short processes, more for a CPU-bound run):
// in the whole test stage, whose time has no other use, a whole test timed traced starts
// once half that time is left, and is given what is left up to the whole traced time.
// One the deadline stops tells nothing.
constexpr double kTracedStartShare = 0.5;

// The lines a unit puts back: a line unit's one, else its hunks' (unitLines).
unsigned linesOf(const RevertEvidence &ev, size_t unit) {
  return ev.units[unit].newLine ? 1 : unitLines(ev, unit);
}

} // namespace

std::string passPhrase(bool processOnly, const std::string &wholeTest) {
  if (!processOnly || wholeTest == "passes")
    return "makes the test pass";
  if (wholeTest == "fails")
    return "makes the failing process behave as in the old version, but the test still fails";
  return "makes the failing process behave as in the old version";
}

std::string wholeTestVerdict(const DebugRequest &req,
                             const std::map<std::string, std::string> &files,
                             const Deadline &deadline, bool lastUse) {
  if (!req.runWholeTest || deadline.expired())
    return "";
  double margin = req.wholeTestTimedTraced ? kTracedTestTimeMargin : kTestTimeMargin;
  double wanted = margin * req.wholeTestSeconds + kTestTimeSlack;
  // Elsewhere (an edit confirmed in the revert stage) a run the deadline stops would take
  // the time of the trials after it.
  double least = lastUse && req.wholeTestTimedTraced
                     ? kTracedStartShare * req.wholeTestSeconds + kTestTimeSlack
                     : wanted;
  if (deadline.limited() && deadline.remaining() < least)
    return "";
  try { // evidence, never a reason for the report not to come out
    return req.runWholeTest(files, deadline.clamp(wanted));
  } catch (const std::exception &) {
    return ""; // the scratch copy could not be made (a full disk): not run
  }
}

bool anyToConfirm(const RevertEvidence &ev) {
  return std::any_of(ev.edits.begin(), ev.edits.end(),
                     [](const auto &e) { return e.result == "passes" && e.wholeTest.empty(); }) ||
         std::any_of(ev.fixing.begin(), ev.fixing.end(), [&](size_t u) {
           return !ev.units[u].files.empty() && ev.units[u].wholeTest.empty() &&
                  !ev.units[u].others.changed;
         });
}

void confirmFixes(const DebugRequest &req, RevertEvidence &ev,
                  const std::vector<DebugCandidate> &ranked, const Deadline &deadline,
                  DebugReport &report, Stages &stages) {
  if (!req.runWholeTest)
    return;
  // Each trial to confirm: its files, where its verdict goes, its trial.
  struct Pending {
    const std::map<std::string, std::string> *files;
    std::string *verdict;
    size_t trial;
    RevertEvidence::Edit *edit; // an edit's result changes with a failing verdict
  };
  std::vector<Pending> pending;
  std::set<const std::string *> queued;
  auto want = [&](const std::map<std::string, std::string> &files, std::string &verdict,
                  size_t trial, RevertEvidence::Edit *edit) {
    // A revert that changed what the test's alike processes do is no fix to confirm.
    if (trial < report.reverts.size() && report.reverts[trial].others.changed)
      return;
    if (!files.empty() && verdict.empty() && queued.insert(&verdict).second)
      pending.push_back({&files, &verdict, trial, edit});
  };
  // In the ranking's order: a candidate's passing edits, then its unit.
  for (const DebugCandidate &c : ranked) {
    for (RevertEvidence::Edit &e : ev.edits)
      if (e.result == "passes" && c.version == "new" && e.file == c.file && e.line == c.line)
        want(e.files, e.wholeTest, e.trial, &e);
    for (size_t u : ev.fixing)
      if (!c.revertUnit.empty() && ev.units[u].label == c.revertUnit)
        want(ev.units[u].files, ev.units[u].wholeTest, ev.units[u].trial, nullptr);
  }
  // Then the rest, edits first, the narrowest reverts first.
  for (RevertEvidence::Edit &e : ev.edits)
    if (e.result == "passes")
      want(e.files, e.wholeTest, e.trial, &e);
  std::vector<size_t> units = ev.fixing;
  std::stable_sort(units.begin(), units.end(),
                   [&](size_t a, size_t b) { return linesOf(ev, a) < linesOf(ev, b); });
  for (size_t u : units)
    want(ev.units[u].files, ev.units[u].wholeTest, ev.units[u].trial, nullptr);
  unsigned ran = 0, skipped = 0;
  for (Pending &p : pending) {
    stages.update("the whole test on " + std::to_string(ran) + " of " +
                  std::to_string(pending.size()) + " passing trial(s)");
    *p.verdict = wholeTestVerdict(req, *p.files, deadline, true);
    if (p.verdict->empty()) {
      ++skipped;
      continue;
    }
    ++ran;
    if (p.trial < report.reverts.size())
      report.reverts[p.trial].wholeTest = *p.verdict;
    if (p.edit && *p.verdict == "fails")
      p.edit->result = "process only";
  }
  if (skipped)
    stages.note("the whole test (" + std::to_string(static_cast<int>(req.wholeTestSeconds + 0.5)) +
                (req.wholeTestTimedTraced ? " s traced" : " s natively") + ") ran on " +
                std::to_string(ran) + " of the " + std::to_string(pending.size()) +
                " trial(s) that make the failing process behave as in the old version before the "
                "budget ended; the others say only that");
}

} // namespace rootline::debug
