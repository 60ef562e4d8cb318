// The output spectrum: which lines the output lines both versions print alike depend
// on. A changed line in the dynamic slices of many such lines fed output that stayed
// right; where a large change has many changed lines that no other evidence tells
// apart, the one that only the failing output depends on is the likelier cause (the
// idea of spectrum-based localisation, Tarantula's, applied to the outputs of one run
// pair instead of to passing and failing tests).
#include "compose/debug_stages.h"

#include <unordered_map>

namespace rootline::debug {

namespace {

// Output lines sliced per version: enough to tell lines apart, few enough that the
// slices (one backward pass each) stay a small part of the slice stage.
constexpr size_t kMaxSharedLines = 8;

struct ByteRange {
  uint64_t begin = 0, end = 0;
};

// Lines of `text` (with their newline) and where each one lies.
std::vector<std::pair<std::string, ByteRange>> linesOf(const std::string &text) {
  std::vector<std::pair<std::string, ByteRange>> out;
  uint64_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    uint64_t end = nl == std::string::npos ? text.size() : nl + 1;
    out.push_back({text.substr(start, end - start), {start, end}});
    start = end;
  }
  return out;
}

bool blank(const std::string &line) {
  return line.find_first_not_of(" \t\r\n") == std::string::npos;
}

// The byte ranges of `mine`'s non-blank lines that `other` prints too (a line printed
// twice in one and once in the other is shared once), at most kMaxSharedLines of them,
// spread over the output.
std::vector<ByteRange> sharedLines(const std::string &mine, const std::string &other) {
  std::unordered_map<std::string, unsigned> available;
  for (const auto &[text, range] : linesOf(other))
    ++available[text];
  std::vector<ByteRange> shared;
  for (const auto &[text, range] : linesOf(mine)) {
    auto it = available.find(text);
    if (it == available.end() || it->second == 0 || blank(text))
      continue;
    --it->second;
    shared.push_back(range);
  }
  if (shared.size() <= kMaxSharedLines)
    return shared;
  std::vector<ByteRange> spread;
  for (size_t k = 0; k < kMaxSharedLines; ++k)
    spread.push_back(shared[k * shared.size() / kMaxSharedLines]);
  return spread;
}

// Slices one version's shared lines; false when the deadline cut one (then a line's
// absence from a slice says nothing, and the spectrum is not used).
bool sliceShared(const Version &v, const std::vector<ByteRange> &lines, const Deadline &deadline,
                 OutputSpectrum &out) {
  const DynamicTrace &t = v.trace.dynamic;
  unsigned &sliced = out.sliced[v.name];
  for (const ByteRange &r : lines) {
    std::vector<CriterionSeed> seeds = outputSeeds(t, *v.index, 1, r.begin, r.end);
    if (seeds.empty())
      continue;
    Slice s = computeSlice(t, *v.index, *v.analysis, seeds, false, deadline);
    if (!s.complete || deadline.expired())
      return false;
    std::vector<bool> seen; // by instruction id
    std::set<std::pair<std::string, unsigned>> lineSet;
    for (uint64_t i = 0; i < t.records.size() && i < s.member.size(); ++i) {
      if (!s.member[i])
        continue;
      uint32_t id = t.records.id(i);
      if (id >= seen.size())
        seen.resize(id + 1);
      if (seen[id])
        continue;
      seen[id] = true;
      SourceLocation loc = ModuleIndex::locationOf(v.index->instruction(id));
      if (loc.valid())
        lineSet.insert({relativeTo(loc.path(), v.root), loc.line});
    }
    for (const auto &[file, line] : lineSet)
      ++out.holding[{v.name, file, line}];
    ++sliced;
  }
  return true;
}

} // namespace

OutputSpectrum sliceSharedOutputs(const Version &oldV, const Version &newV,
                                  const Deadline &deadline, Stages &stages) {
  OutputSpectrum out;
  std::string oldOut = loggedOutput(oldV.trace.dynamic), newOut = loggedOutput(newV.trace.dynamic);
  std::vector<ByteRange> oldShared = sharedLines(oldOut, newOut);
  std::vector<ByteRange> newShared = sharedLines(newOut, oldOut);
  if (oldShared.empty() || newShared.empty())
    return out;
  stages.update("the output lines both versions print alike");
  if (!sliceShared(oldV, oldShared, deadline, out) ||
      !sliceShared(newV, newShared, deadline, out)) {
    stages.note("the output spectrum was left out: its slices did not finish in time");
    return {};
  }
  return out;
}

void applyOutputSpectrum(const OutputSpectrum &spectrum, const DebugReport &report,
                         std::vector<DebugCandidate> &candidates) {
  if (!spectrum.usable())
    return;
  for (auto &c : candidates) {
    auto n = spectrum.sliced.find(c.version);
    if (n == spectrum.sliced.end() || n->second == 0)
      continue;
    // A line the slice names otherwise (or not at all) would read "none depends on it".
    const auto &sliceLines = c.version == "old" ? report.oldSliceLines : report.newSliceLines;
    auto f = sliceLines.find(c.file);
    if (f == sliceLines.end() || !f->second.count(c.line))
      continue;
    auto h = spectrum.holding.find({c.version, c.file, c.line});
    c.sharedOutputsOf = n->second;
    c.sharedOutputs = h == spectrum.holding.end() ? 0 : h->second;
  }
}

bool OutputSpectrum::usable() const {
  auto o = sliced.find("old"), n = sliced.find("new");
  return o != sliced.end() && o->second > 0 && n != sliced.end() && n->second > 0;
}

} // namespace rootline::debug
