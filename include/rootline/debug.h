// rootline debug: why does a test that passes on the old version fail on the new one?
// Establishes the failure, picks the criterion in each version (the first output that
// differs, down to the printf argument, or the crash), composes the two versions'
// relevant slice conditions Darwin-style (DESIGN.md 2.6), and ranks the candidates by
// evidence from running alternative inputs natively on both versions.
#pragma once

#include "rootline/analysed_version.h"
#include "rootline/explore.h"
#include "rootline/text_diff.h"
#include "rootline/vcs.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rootline {

enum class ConditionKind { Rsc, Pc };

struct DebugRequest {
  BuildRecipe oldRecipe, newRecipe;
  fs::path oldRoot, newRoot;                      // for file names in reports and the diff
  std::string oldLabel = "old", newLabel = "new"; // directories, or commits' short hashes
  // Between two commits: their metadata for the reports, and git's diff of the two
  // trees (renames included) for ranking and line mapping. Without it each file pair
  // is diffed by path. Two single files (`--old a.c --new b.c`) come as a one-file
  // sourceDiff pairing them.
  std::optional<CommitInfo> oldCommit, newCommit;
  std::optional<SourceDiff> sourceDiff;
  fs::path repository; // the repository's top directory, with commits
  ProgramInput input;
  std::optional<std::string> expectedStdout; // --expect; else the old version's output
  ConditionKind condition = ConditionKind::Rsc;
  double timeoutSeconds = 30;
  unsigned solverTimeoutMs = 10000;
  unsigned maxCandidates = 20;
};

struct DebugCandidate {
  unsigned rank = 0;
  std::string version; // "old" or "new": where the line is
  std::string kind;    // "branch deviation", "missing code", "changed computation"
  std::string file;    // relative to the version's root when possible
  unsigned line = 0;
  std::string function;
  std::string source; // the line's text
  // The same line in the other version if unchanged; for a changed line shown on the
  // new side, the old line it replaced.
  std::optional<unsigned> otherLine;
  std::string condition; // the branch condition that the alternative input flips (readable)
  bool hasAlternative = false;
  ProgramInput alternative;
  RunSummary oldRun, newRun;   // the alternative input, run natively on both versions
  bool removesFailure = false; // both versions behave alike on the alternative input
  bool changesFailure = false; // the new version's output differs from its failing one
  bool inChangedRegion = false;
  unsigned distance = 0; // how far from the failure, in branches of the new slice
  std::vector<std::string> reasons;
};

struct DebugReport {
  std::string oldLabel, newLabel;
  std::optional<CommitInfo> oldCommit, newCommit;
  fs::path repository;
  ProgramInput input;
  RunSummary expected, oldRun, newRun;
  std::string failure;                           // one sentence: what differs
  std::string oldCriterion, newCriterion;        // described
  std::string condition;                         // "rsc" or "pc"
  size_t oldConstraints = 0, newConstraints = 0; // |f|, |f'|
  std::string direction;                         // "new deviates", "old lacks", "same partition"
  std::vector<DebugCandidate> candidates;
  unsigned solverCalls = 0;
  uint64_t formulaBytes = 0;
  double solverSeconds = 0, totalSeconds = 0;
  std::vector<std::string> notes; // concretisations and other caveats
  fs::path oldRoot, newRoot;
  // Source lines in each version's relevant slice of its criterion, by file (relative).
  std::map<std::string, std::set<unsigned>> oldSliceLines, newSliceLines;
  // Files whose path differs between the versions (git renames, two single files):
  // old path -> new path. Any other file has the same path in both.
  std::map<std::string, std::string> renamedFiles;
};

DebugReport debugRegression(const DebugRequest &request);

// Report formats (docs/report-schema.md).
nlohmann::json reportJson(const DebugReport &report);
std::string reportMarkdown(const DebugReport &report);
nlohmann::json reportSarif(const DebugReport &report); // SARIF 2.1.0
// One self-contained page: old and new sources side by side, slices and candidates
// highlighted, evidence inputs.
std::string reportHtml(const DebugReport &report);
std::string reportSummary(const DebugReport &report); // short, for the terminal

// A commit in reports: JSON {hash, short, author, email, date, subject, parents}, and
// one line "abc1234 Subject (Author, date)".
nlohmann::json commitJson(const CommitInfo &commit);
std::string commitLine(const CommitInfo &commit);

} // namespace rootline
