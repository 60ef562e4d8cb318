// Private to the report writers (debug, bisect, validate): pieces every format shares.
#pragma once

#include "rootline/debug.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace rootline::report {

nlohmann::json runJson(const RunSummary &run);          // {"outcome", "stdout"[, "stderr"]}
nlohmann::json inputJson(const ProgramInput &input);    // {"stdin", "args"[, "files"]}
std::string oneLine(std::string text, size_t max = 80); // newlines as spaces, cut at max
std::string markdownFence(const std::string &text);     // a ``` block ending in a newline
std::string htmlEscape(const std::string &text);        // < > & "
// The lines of two descriptions of a state (a unit test's "returns 3", "o0: 01 00 …")
// that differ: each line is paired by its label (the word before ": ") or else by its
// place, and kept on its side when its counterpart differs or is missing. When one side
// has no labelled line at all (the call crashed and left no state), the other side's
// labelled lines have nothing to differ from: they are counted, not kept.
struct DifferingLines {
  std::vector<std::string> old, now;
  size_t alike = 0;    // pairs of lines that are equal
  size_t unpaired = 0; // labelled lines facing a side that left no state
};
DifferingLines differingLines(const std::string &oldText, const std::string &newText);
// An alternative input's changes against the failing input, joined ("token 1: 10 → 11;
// line 2, byte 3: 'a' → 'b'"; the first 8, then "and N more"), or "the failing input
// itself" when there are none.
std::string changesText(const std::vector<std::string> &changes);
// One line of changed-computation evidence: "token 1: 5 → 2: both versions compute
// `extra` = 4 here; old prints `total 104`, new prints `total 104`: alike".
std::string valueEvidenceText(const ValueEvidence &e, size_t outputWidth = 40);
nlohmann::json valueEvidenceJson(const ValueEvidence &e);
// SARIF 2.1.0: rootline as the run's tool with these rules, and a document of one run.
nlohmann::json sarifTool(const nlohmann::json &rules);
nlohmann::json sarifDocument(const nlohmann::json &run);

} // namespace rootline::report
