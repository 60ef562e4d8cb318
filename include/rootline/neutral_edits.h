// The change between two versions of a C file once the edits that cannot alter
// behaviour are discounted: whitespace, line breaks, comments, and consistent renames
// of identifiers (a name that disappears from a function while a new name appears
// there as often). What remains are the semantic hunks, numbered like the files
// themselves, so every line maps between the versions as in a plain line diff. The
// debugger ranks only lines in semantic hunks; the other changed lines are neutral
// (docs/debug.md, "Neutral edits").
#pragma once

#include "rootline/text_diff.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rootline {

struct IdentifierRename {
  std::string from, to;
  unsigned oldFirst = 0, oldLast = 0; // old lines it applies to (a function, or the file)
};

struct SemanticDiff {
  TextDiff raw;     // the plain line diff of the two texts
  TextDiff changes; // what is left of it once neutral edits are discounted
  std::vector<IdentifierRename> renames;
  std::string renamedOld; // the old text with the new names: reverting a semantic hunk
                          // to these lines keeps the renames the rest of the file uses
  // For a line the raw diff changed but no semantic hunk holds: what the edit was
  // ("whitespace or comments only", "rename of `i` to `idx`"); "" for other lines.
  std::string neutralWhy(bool inNew, unsigned line) const;
  // The new line that replaced a changed old line: in its hunk, the line with code
  // most like it (not the hunk's first line, which may be a new comment).
  std::optional<unsigned> replacementOf(unsigned oldLine) const;
  // Per line (1-based): its tokens, space-separated (old: as written, and renamed).
  std::vector<std::string> oldLineTokens, renamedLineTokens, newLineTokens;
};

// Every old line's counterpart in the new text (index: old line, 1-based; 0: none).
// Outside the raw diff's hunks, the line map. Inside a hunk, the tokens of both sides
// (renames applied) are matched (longest common subsequence) and an old line goes to
// the new line holding most of its matched tokens, the later one on a tie: a reflowed
// `case 'X': return 10;` goes to the line of `return 10;`, a joined `if (v == 0)` /
// `return -1;` both to the joined line, a modified line to the line it became.
std::vector<unsigned> lineCounterparts(const SemanticDiff &diff);

// `programRenames`: renames of names the file only uses (a function declared in a
// header and renamed everywhere), found over the whole change by programRenames().
SemanticDiff diffSemantically(const std::string &oldText, const std::string &newText,
                              const std::map<std::string, std::string> &programRenames = {});

// Renames over a whole change (old and new text of every changed C file): a name that
// some changed file declares (a function, a global, a type), that every changed file
// using it renames to the same new name (used there as often), that no new text uses
// any more, and whose new name no old text uses, while some new text declares it. A
// file alone cannot tell such a rename from a call changed to another function.
std::map<std::string, std::string>
programRenames(const std::vector<std::pair<std::string, std::string>> &changedFiles);

// `text` with every identifier named in `renames` replaced by its new name (strings,
// character constants and comments untouched).
std::string applyRenames(const std::string &text,
                         const std::map<std::string, std::string> &renames);

} // namespace rootline
