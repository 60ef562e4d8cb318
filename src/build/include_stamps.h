// Direct-mode lookup of a unit's cache key (the idea of ccache's direct mode): the key
// of a unit comes from its preprocessed text, which costs a clang run per unit. A unit
// whose source and every file it included are unchanged (same path, size and
// modification time as when the key was computed) keeps its key without that run.
#pragma once

#include "rootline/fs.h"

#include <optional>
#include <string>
#include <vector>

namespace rootline {

struct FileStamp {
  std::string path; // absolute
  uint64_t size = 0;
  int64_t mtime = 0; // nanoseconds
  bool operator==(const FileStamp &) const = default;
};

// The files a Make-style dependency file (clang -MD) names after the target, as
// absolute paths (relative ones resolve from `dir`). Escaped spaces and line
// continuations are handled.
std::vector<std::string> depfileInputs(const std::string &text, const fs::path &dir);

// The stamps of these files now; nullopt when one is missing.
std::optional<std::vector<FileStamp>> stampsOf(const std::vector<std::string> &paths);

// The key recorded for `directKey` when every stamp still holds, else nullopt.
std::optional<std::string> recordedUnitKey(const std::string &directKey);
// Records `key` for `directKey` with the stamps of `inputs` (atomically; nothing is
// recorded when an input is missing).
void recordUnitKey(const std::string &directKey, const std::string &key,
                   const std::vector<std::string> &inputs);

} // namespace rootline
