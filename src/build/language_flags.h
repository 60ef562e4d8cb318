// The flags of a C compile that a later compile of the same unit's source needs
// (preprocessor and language: -D, -U, -I, -include, -std, ...), and their record in the
// unit's debug information. rootline's bitcode compiles store them as the compile
// unit's flags (`-dwarf-debug-flags`), so that a differential unit test can compile the
// unit's file again as the build did (docs/debug.md, "Differential unit test"). Only
// these flags, never output paths: the bitcode stays content-addressed.
// Header-only: rootline-cc (standard library only) uses it too.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace rootline {

// The language flags among a compile's arguments, in order (two-part flags kept whole).
inline std::vector<std::string> languageFlags(const std::vector<std::string> &args) {
  static const std::vector<std::string> separate = {"-D",      "-U",         "-I",      "-isystem",
                                                    "-iquote", "-idirafter", "-include"};
  static const std::vector<std::string> joined = {
      "-D", "-U", "-I", "-std=", "-isystem", "-iquote", "-idirafter", "-include"};
  static const std::vector<std::string> single = {
      "-funsigned-char", "-fsigned-char", "-pthread",    "-fgnu89-inline",
      "-fms-extensions", "-fcommon",      "-fno-common", "-ansi"};
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (std::find(separate.begin(), separate.end(), a) != separate.end()) {
      if (i + 1 < args.size()) {
        out.push_back(a);
        out.push_back(args[++i]);
      }
      continue;
    }
    bool keep = std::find(single.begin(), single.end(), a) != single.end() ||
                a.compare(0, 6, "-Wp,-D") == 0 || a.compare(0, 6, "-Wp,-U") == 0;
    for (const auto &p : joined)
      keep = keep || (a.size() > p.size() && a.compare(0, p.size(), p) == 0);
    if (keep)
      out.push_back(a);
  }
  return out;
}

// One string of arguments, each blank and backslash escaped with a backslash (as clang
// records a command line), and back.
inline std::string recordedFlagsText(const std::vector<std::string> &flags) {
  std::string out;
  for (const auto &f : flags) {
    if (!out.empty())
      out += ' ';
    for (char c : f) {
      if (c == ' ' || c == '\\')
        out += '\\';
      out += c;
    }
  }
  return out;
}

inline std::vector<std::string> splitRecordedFlags(const std::string &text) {
  std::vector<std::string> out;
  std::string cur;
  bool any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      cur += text[++i];
      any = true;
    } else if (c == ' ') {
      if (any)
        out.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += c;
      any = true;
    }
  }
  if (any)
    out.push_back(cur);
  return out;
}

// The arguments that store `flags` as the compile unit's flags in the debug information
// (none when there are none).
inline std::vector<std::string> recordFlagsArgs(const std::vector<std::string> &flags) {
  if (flags.empty())
    return {};
  return {"-Xclang", "-dwarf-debug-flags", "-Xclang", recordedFlagsText(flags)};
}

// The flags for a test that includes the unit's source and cmocka.h, which uses
// `inline`: strict C89 (`-ansi`, `-std=c89`, `-std=c90`, `-std=iso9899:1990` or
// `:199409`; cJSON builds so) becomes gnu89, the same language with GNU keywords.
inline std::vector<std::string> withInlineKeyword(std::vector<std::string> flags) {
  static const std::vector<std::string> strict = {"-ansi", "-std=c89", "-std=c90",
                                                  "-std=iso9899:1990", "-std=iso9899:199409"};
  for (auto &f : flags)
    if (std::find(strict.begin(), strict.end(), f) != strict.end())
      f = "-std=gnu89";
  return flags;
}

// Diagnostics clang 16+ makes errors by default where gcc (which most projects build
// with) warns: an implicit declaration (`getopt` under `-std=c11`), implicit int, int to
// pointer conversions. Every compile rootline makes of a project's code passes these
// before the project's own flags (which may still turn the errors back on).
inline const std::vector<std::string> &lenientDiagnosticFlags() {
  static const std::vector<std::string> flags = {"-Wno-error=implicit-function-declaration",
                                                 "-Wno-error=implicit-int",
                                                 "-Wno-error=int-conversion",
                                                 "-Wno-error=incompatible-function-pointer-types",
                                                 "-Wno-error=incompatible-pointer-types",
                                                 "-Wno-unknown-warning-option"};
  return flags;
}

} // namespace rootline
