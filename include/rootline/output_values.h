// A run's stdout as values (docs/validate.md, "Values"): real programs print several
// values on one line (`printf("%d %d\n", fee, bonus)`, a CSV row, a JSON object), and a
// fix may restore one of them and keep an intended change to another. Each line is split
// into its values, the maximal runs of the characters numbers and words are made of,
// apart from the text between them. Several runs' outputs are compared value by value
// where their lines split alike (the same text between the values), and line by line
// where they do not.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace rootline {

// The lines of an output, each without its newline (a last line without one counts).
std::vector<std::string> outputLines(const std::string &text);

struct LineValues {
  std::vector<std::string> values;
  // The text before each value, and after the last one: values.size() + 1 entries.
  std::vector<std::string> between;
  // Where each value starts in the line.
  std::vector<size_t> offsets;
};
LineValues splitValues(const std::string &line);

// A place in the outputs: value `value` (from 0) of line `line` (from 0), or the whole
// line when the runs' lines do not split alike.
struct ValuePlace {
  size_t line = 0;
  std::optional<size_t> value;
  bool operator<(const ValuePlace &o) const {
    return line != o.line ? line < o.line : value < o.value;
  }
  bool operator==(const ValuePlace &o) const { return line == o.line && value == o.value; }
};
// "value 2 of line 1", "line 3".
std::string placeText(const ValuePlace &p);

// Each place of several runs' outputs with each run's text there (none: that run's
// output has no such line), in output order.
struct ComparedValue {
  ValuePlace place;
  std::vector<std::optional<std::string>> texts;
  bool same() const;
};
std::vector<ComparedValue> compareValues(const std::vector<std::string> &outputs);

// The places where two outputs differ (`expected` against `actual`).
std::vector<ValuePlace> differingValues(const std::string &expected, const std::string &actual);

// Whether `place` is one of `places` or, a whole line, holds one of them.
bool covers(const std::vector<ValuePlace> &places, const ValuePlace &place);

// The byte range of a place in `output` (a whole line without its newline); none when
// the output has no such place.
std::optional<std::pair<size_t, size_t>> placeBytes(const std::string &output,
                                                    const ValuePlace &place);

} // namespace rootline
