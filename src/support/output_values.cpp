// A run's stdout as values (include/rootline/output_values.h).
#include "rootline/output_values.h"

#include <algorithm>

namespace rootline {

namespace {

// What numbers and words are made of: `-12`, `3.50`, `1e+06`, `ok`, `snake_case`.
bool valueChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || c == '.' || c == '-' || c == '+' || u >= 0x80;
}

} // namespace

std::vector<std::string> outputLines(const std::string &text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    out.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

LineValues splitValues(const std::string &line) {
  LineValues v;
  std::string between;
  size_t i = 0;
  while (i < line.size()) {
    if (!valueChar(line[i])) {
      between += line[i++];
      continue;
    }
    size_t start = i;
    while (i < line.size() && valueChar(line[i]))
      ++i;
    v.between.push_back(between);
    between.clear();
    v.values.push_back(line.substr(start, i - start));
    v.offsets.push_back(start);
  }
  v.between.push_back(between);
  return v;
}

std::string placeText(const ValuePlace &p) {
  std::string line = "line " + std::to_string(p.line + 1);
  return p.value ? "value " + std::to_string(*p.value + 1) + " of " + line : line;
}

bool ComparedValue::same() const {
  return std::all_of(texts.begin(), texts.end(), [&](const auto &t) { return t == texts[0]; });
}

std::vector<ComparedValue> compareValues(const std::vector<std::string> &outputs) {
  std::vector<std::vector<std::string>> lines;
  size_t most = 0;
  for (const auto &o : outputs) {
    lines.push_back(outputLines(o));
    most = std::max(most, lines.back().size());
  }
  std::vector<ComparedValue> out;
  for (size_t l = 0; l < most; ++l) {
    // The line split alike in every run that has it: value by value.
    std::vector<std::optional<LineValues>> split;
    bool alike = true;
    for (const auto &ls : lines) {
      if (l >= ls.size()) {
        split.emplace_back();
        alike = false; // a run lacks the line: the line is one place
        continue;
      }
      split.push_back(splitValues(ls[l]));
      alike = alike && split.back()->between == split.front()->between;
    }
    if (alike && !split.empty() && !split.front()->values.empty()) {
      for (size_t k = 0; k < split.front()->values.size(); ++k) {
        ComparedValue c{{l, k}, {}};
        for (const auto &s : split)
          c.texts.push_back(s->values[k]);
        out.push_back(std::move(c));
      }
      continue;
    }
    ComparedValue c{{l, std::nullopt}, {}};
    for (const auto &ls : lines)
      c.texts.push_back(l < ls.size() ? std::optional<std::string>(ls[l]) : std::nullopt);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<ValuePlace> differingValues(const std::string &expected, const std::string &actual) {
  std::vector<ValuePlace> out;
  for (const auto &c : compareValues({expected, actual}))
    if (!c.same())
      out.push_back(c.place);
  return out;
}

bool covers(const std::vector<ValuePlace> &places, const ValuePlace &place) {
  return std::any_of(places.begin(), places.end(), [&](const ValuePlace &p) {
    return p.line == place.line && (!place.value || !p.value || p.value == place.value);
  });
}

std::optional<std::pair<size_t, size_t>> placeBytes(const std::string &output,
                                                    const ValuePlace &place) {
  size_t start = 0;
  for (size_t l = 0; l < place.line; ++l) {
    size_t nl = output.find('\n', start);
    if (nl == std::string::npos)
      return std::nullopt;
    start = nl + 1;
  }
  if (start >= output.size())
    return std::nullopt;
  size_t end = output.find('\n', start);
  std::string line =
      output.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!place.value)
    return std::pair<size_t, size_t>{start, start + line.size()};
  LineValues v = splitValues(line);
  if (*place.value >= v.values.size())
    return std::nullopt;
  size_t from = start + v.offsets[*place.value];
  return std::pair<size_t, size_t>{from, from + v.values[*place.value].size()};
}

} // namespace rootline
