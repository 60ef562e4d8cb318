// Two source trees compared without git (two directories given on the command line).
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace rootline {

// The files present in both trees whose extension is one of `extensions` and whose
// text differs, relative to the trees' tops. Hidden directories are skipped; the walk
// stops after `maxEntries` entries of the new tree.
std::vector<std::string> changedTreeFiles(const std::filesystem::path &oldRoot,
                                          const std::filesystem::path &newRoot,
                                          const std::set<std::string> &extensions,
                                          size_t maxEntries);

} // namespace rootline
