// Direct-mode unit keys: a unit's inputs and their stamps, recorded beside the cache.
#include "build/include_stamps.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

namespace rootline {

namespace {

fs::path entryPath(const std::string &directKey) {
  return cacheRoot() / "build" / "direct" / (directKey + ".json");
}

} // namespace

std::vector<std::string> depfileInputs(const std::string &text, const fs::path &dir) {
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty())
      words.push_back(word);
    word.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      flush(); // a continuation line
      ++i;
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
        ++i;
    } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
      word += ' ';
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  std::vector<std::string> out;
  bool afterTarget = false;
  for (const auto &w : words) {
    if (!afterTarget) {
      afterTarget = w.ends_with(":");
      continue;
    }
    fs::path p = fs::path(w).is_absolute() ? fs::path(w) : dir / w;
    out.push_back(p.lexically_normal().string());
  }
  return out;
}

std::optional<std::vector<FileStamp>> stampsOf(const std::vector<std::string> &paths) {
  std::vector<FileStamp> out;
  for (const auto &p : paths) {
    struct stat st;
    if (stat(p.c_str(), &st) != 0)
      return std::nullopt;
    out.push_back({p, static_cast<uint64_t>(st.st_size),
                   static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec});
  }
  return out;
}

std::optional<std::string> recordedUnitKey(const std::string &directKey) {
  std::error_code ec;
  fs::path entry = entryPath(directKey);
  if (!fs::exists(entry, ec))
    return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(readFile(entry), nullptr, false);
  if (j.is_discarded() || !j.contains("key") || !j.contains("inputs"))
    return std::nullopt;
  std::vector<std::string> paths;
  std::vector<FileStamp> recorded;
  for (const auto &s : j["inputs"]) {
    FileStamp f{s.at(0).get<std::string>(), s.at(1).get<uint64_t>(), s.at(2).get<int64_t>()};
    paths.push_back(f.path);
    recorded.push_back(f);
  }
  auto now = stampsOf(paths);
  if (!now || *now != recorded)
    return std::nullopt;
  return j["key"].get<std::string>();
}

void recordUnitKey(const std::string &directKey, const std::string &key,
                   const std::vector<std::string> &inputs) {
  auto stamps = stampsOf(inputs);
  if (!stamps)
    return;
  nlohmann::json j = {{"key", key}, {"inputs", nlohmann::json::array()}};
  for (const auto &s : *stamps)
    j["inputs"].push_back({s.path, s.size, s.mtime});
  fs::path entry = entryPath(directKey);
  fs::create_directories(entry.parent_path());
  writeFileAtomic(entry, j.dump());
}

} // namespace rootline
