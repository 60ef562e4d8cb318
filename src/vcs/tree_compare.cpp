// Two directory trees compared file by file (no git): which files of given kinds differ.
#include "rootline/tree_compare.h"

#include "rootline/fs.h"

namespace rootline {

std::vector<std::string> changedTreeFiles(const fs::path &oldRoot, const fs::path &newRoot,
                                          const std::set<std::string> &extensions,
                                          size_t maxEntries) {
  std::vector<std::string> out;
  size_t seen = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(newRoot, ec);
       !ec && it != fs::recursive_directory_iterator() && ++seen < maxEntries; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_directory() && !name.empty() && name[0] == '.') {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || !extensions.count(it->path().extension().string()))
      continue;
    std::string rel = it->path().lexically_relative(newRoot).string();
    fs::path old = oldRoot / rel;
    if (fs::is_regular_file(old) && readFile(old) != readFile(it->path()))
      out.push_back(rel);
  }
  return out;
}

} // namespace rootline
