// rootline validate: does a fix restore the good version's behaviour? The failing test
// must pass on the fix; for the failing input's partition (the good version's relevant
// slice condition f) the solver proves f ∧ f_fix ⇒ out = out_fix or returns a
// counterexample input, which is run natively; then the partitions next to it (one
// constraint of f or f_fix negated) are run on both, and every input on which the fix
// and the good version disagree is reported (DESIGN.md 2.7, docs/validate.md).
#pragma once

#include "rootline/debug.h"
#include "rootline/output_values.h"
#include "rootline/progress.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rootline {

struct ValidateRequest {
  BuildRecipe goodRecipe, badRecipe, fixRecipe;
  fs::path goodRoot, badRoot, fixRoot;
  std::string goodLabel = "good", badLabel = "bad", fixLabel = "fix";
  std::optional<CommitInfo> goodCommit, badCommit, fixCommit;
  fs::path repository;
  ProgramInput input;
  std::optional<std::string> expectedStdout; // else the good version's output
  double timeoutSeconds = 30;
  unsigned solverTimeoutMs = 10000;
  unsigned maxNeighbours = 40; // inputs tried in neighbouring partitions
  double budgetSeconds = 60;   // the whole job, builds excepted (0: unlimited)
  Progress *progress = nullptr;
  // Versions the project's own build made (--build/--test, docs/project.md), used
  // instead of the recipes; the project's test command's verdict on the fix (a fix that
  // fails it is rejected); notes said first (the test, the failing process).
  std::optional<BuiltVersion> goodBuilt, fixBuilt;
  std::optional<fs::path> badNative;
  std::optional<bool> projectTestPassesOnFix;
  std::string projectTest;
  std::vector<std::string> leadNotes;
};

// An input on which the fix and the good version behave differently (or, unconfirmed,
// on which the solver predicted they would).
// An input validate ran on good, bad and fix, classified three ways (docs/validate.md,
// "Verdicts"):
//   "restored"      fix = good ≠ bad;
//   "kept change"   fix = bad ≠ good outside the failing input's partition: a change the
//                   bad version made on purpose, listed, not counted against the fix;
//   "still failing" fix = bad ≠ good inside the failing input's partition;
//   "new behaviour" fix ≠ good and fix ≠ bad: what the fix itself introduced;
//   "same"          all three alike.
// One value where good, bad and fix do not all print the same (docs/validate.md,
// "Values"): its place, the variable the good version printed there on the failing
// input ("bonus"), each version's text, and its class.
struct ValueVerdict {
  ValuePlace place;
  std::string name;
  std::optional<std::string> good, bad, fix; // none: that version prints no such line
  std::string verdict; // "restored", "kept change", "still failing", "new behaviour"
  // "value 2 of line 1 (`bonus`): kept change, like bad"
  std::string text() const;
};

struct Disagreement {
  std::string
      how; // "counterexample to the proof", "leaves the fix's partition at <file:line>", ...
  ProgramInput input;
  std::vector<std::string> changes; // against the failing input ("token 1: 10 → 9")
  RunSummary good, bad, fix;
  bool confirmed = false;           // the fix and the good version differ, run natively
  bool insideFailure = false;       // in the failing input's partition of the good version
  std::string verdict;              // the class above
  std::string where;                // the constraint's line it was found at ("main.c:9"), or ""
  std::vector<ValueVerdict> values; // each value where the three versions do not agree
};

struct ValidateReport {
  std::string goodLabel, badLabel, fixLabel;
  std::optional<CommitInfo> goodCommit, badCommit, fixCommit;
  fs::path repository;
  ProgramInput input;
  RunSummary expected, goodRun, badRun, fixRun;
  bool testPasses = false; // the fix prints the expected output and ends like the good version
  // The values the failing test got wrong on the bad version, and the names of those
  // the good version printed from a variable ("value 1 of line 1" → "fee").
  std::vector<ValuePlace> failingValues;
  std::map<std::string, std::string> failingNames;
  // "proved", "refuted" (a confirmed counterexample), or "not proved: <why>".
  std::string proof;
  size_t goodConstraints = 0, fixConstraints = 0; // |f|, |f_fix|
  unsigned outputsCompared = 0;                   // symbolic output values in the claim
  std::optional<Disagreement> counterexample;
  unsigned neighboursTried = 0;
  // Inputs on which the fix and the good version differ (natively): "still failing" and
  // "new behaviour" reject the fix; "kept change" is listed, not counted.
  std::vector<Disagreement> disagreements;
  // Inputs outside the failing input's partition where the fix behaves like the good
  // version and the bad one does not: the fix also reverts a change of the bad version.
  std::vector<Disagreement> reverted;
  std::vector<std::string> warnings; // "also reverts the change at main.c:9"
  // What the verdict covers: partitions proved by the solver, partitions sampled by a
  // native run of one input each, and what the budget or the neighbour limit skipped.
  struct Scope {
    std::vector<std::string> proved;  // "the failing input's partition in good and fix"
    std::vector<std::string> sampled; // each input's "how"
    std::vector<std::string> skipped;
  } scope;
  bool accepted = false;
  std::string verdict; // one sentence
  std::vector<std::string> notes;
  unsigned solverCalls = 0;
  double seconds = 0;
};

// Throws Error (exit 2) when a version does not build, the test fails on the good
// version or passes on the bad one.
ValidateReport validateFix(const ValidateRequest &request);

nlohmann::json validateJson(const ValidateReport &report); // schema rootline.validate/1
std::string validateMarkdown(const ValidateReport &report);
nlohmann::json validateSarif(const ValidateReport &report);
std::string validateHtml(const ValidateReport &report);
std::string validateSummary(const ValidateReport &report);

} // namespace rootline
