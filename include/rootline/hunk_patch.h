// A file between two versions: each hunk of their diff taken from one side or the
// other. Reverting one hunk of a change, or applying one alone, is this with one flag
// flipped (docs/debug.md, "Revert evidence").
#pragma once

#include "rootline/text_diff.h"

#include <string>
#include <vector>

namespace rootline {

// `takeNew[h]`: hunk h reads as in `newText`, else as in `oldText`; lines outside every
// hunk are common to both. All true gives `newText`, all false `oldText`.
std::string mixVersions(const std::string &oldText, const std::string &newText,
                        const TextDiff &diff, const std::vector<bool> &takeNew);

} // namespace rootline
