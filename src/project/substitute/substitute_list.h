// The list rootline-substitute reads and the log it writes (docs/project.md, "Which
// process the test judges"): lines of space-separated hex fields, so that any byte of a
// path or an argument fits a line. Shared by rootline (which writes the list and reads
// the log) and rootline-substitute (which reads the list and writes the log); standard
// library only.
#pragma once

#include <string>
#include <vector>

namespace rootline::substitute {

inline std::string hex(const std::string &bytes) {
  static const char *kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

inline std::string unhex(const std::string &h) {
  auto digit = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out += static_cast<char>(digit(h[i]) * 16 + digit(h[i + 1]));
  return out;
}

// A line's fields, an empty last one included ("old a b " → 4: no arguments).
inline std::vector<std::string> fieldsOf(const std::string &line) {
  std::vector<std::string> out;
  for (size_t start = 0; start <= line.size();) {
    size_t end = line.find(' ', start);
    if (end == std::string::npos)
      end = line.size();
    out.push_back(line.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

} // namespace rootline::substitute
