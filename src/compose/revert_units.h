// What the revert stage's files share (revert_evidence.cpp, revert_growth.cpp): hunk
// labels, the names a hunk's lines hold or a build error quotes, and the growth of a
// unit whose revert does not build.
#pragma once

#include "compose/debug_stages.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rootline::debug {

// "x.c:12-14", or "x.c:12 (old lines 12-15 deleted)" for a deletion.
std::string hunkLabel(const RevertEvidence::ChangedFile &f, const DiffHunk &h);

// The identifiers on some lines of a file's token lines (space-separated tokens), C
// keywords left out.
std::set<std::string> identifiersOn(const std::vector<std::string> &tokenLines, unsigned first,
                                    unsigned count);

// The identifiers a compiler or linker message quotes ('foo', ‘foo’, `foo').
std::set<std::string> quotedIdentifiers(const std::string &message);

// The unit with what declares the names its build error quotes put back, with the moved
// copy of a name it defines twice, or, when the reverted text does not parse, with the
// hunks next to its own in that file (docs/debug.md, "Revert evidence"); nullopt when
// nothing of the change helps or the unit grew its last time.
std::optional<RevertEvidence::Unit> grownUnit(const RevertEvidence &ev,
                                              const RevertEvidence::Unit &unit,
                                              const std::string &buildError);

} // namespace rootline::debug
