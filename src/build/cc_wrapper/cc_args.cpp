#include "build/cc_wrapper/cc_args.h"
#include "build/language_flags.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <string_view>

namespace rootline::cc {

namespace {

constexpr std::size_t kNoArg = static_cast<std::size_t>(-1);

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::string baseName(const std::string &path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string extension(const std::string &path) {
  std::string base = baseName(path);
  std::size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? "" : base.substr(dot);
}

// Driver options whose value is the next argument when written alone (`-o x`, `-MF x`):
// the value must not be taken for an input, and dropping the option drops it too.
const std::set<std::string, std::less<>> &separateValueOptions() {
  static const std::set<std::string, std::less<>> options = {"-o",
                                                             "-x",
                                                             "-I",
                                                             "-D",
                                                             "-U",
                                                             "-L",
                                                             "-l",
                                                             "-include",
                                                             "-imacros",
                                                             "-isystem",
                                                             "-isystem-after",
                                                             "-idirafter",
                                                             "-iquote",
                                                             "-iprefix",
                                                             "-iwithprefix",
                                                             "-iwithprefixbefore",
                                                             "-iwithsysroot",
                                                             "-isysroot",
                                                             "-imultilib",
                                                             "-iframework",
                                                             "-ivfsoverlay",
                                                             "-cxx-isystem",
                                                             "-MF",
                                                             "-MT",
                                                             "-MQ",
                                                             "-MJ",
                                                             "-Xclang",
                                                             "-Xlinker",
                                                             "-Xassembler",
                                                             "-Xpreprocessor",
                                                             "-Xanalyzer",
                                                             "-Xopenmp-target",
                                                             "-T",
                                                             "-Tdata",
                                                             "-Ttext",
                                                             "-Tbss",
                                                             "-u",
                                                             "-z",
                                                             "-e",
                                                             "-A",
                                                             "-B",
                                                             "-F",
                                                             "-aux-info",
                                                             "-dependency-file",
                                                             "-dependency-dot",
                                                             "-serialize-diagnostics",
                                                             "--serialize-diagnostics",
                                                             "-mllvm",
                                                             "--param",
                                                             "-target",
                                                             "-arch",
                                                             "--sysroot",
                                                             "-gcc-toolchain",
                                                             "-rpath",
                                                             "-framework",
                                                             "-install_name",
                                                             "-working-directory",
                                                             "--config",
                                                             "--prefix",
                                                             "--output",
                                                             "--include-directory",
                                                             "--define-macro",
                                                             "--undefine-macro",
                                                             "--library-directory",
                                                             "--language",
                                                             "--include"};
  return options;
}

// One option with its value, or one input: what the rewrites keep or drop as a whole.
struct Token {
  std::vector<std::string> words;
  bool input = false;
  std::size_t arg = kNoArg; // index in args of the first word; kNoArg for added flags
  InputKind kind = InputKind::LinkerInput;

  const std::string &first() const { return words.front(); }
  bool single() const { return words.size() == 1; }
};

// The language named by a -x option (`-x c`, `-xc`, `--language=c`), if it is one.
std::optional<std::string> languageOption(const Token &t) {
  if (t.input)
    return std::nullopt;
  const std::string &w = t.first();
  if ((w == "-x" || w == "--language") && t.words.size() == 2)
    return t.words[1];
  if (t.single() && startsWith(w, "--language="))
    return w.substr(11);
  if (t.single() && startsWith(w, "-x") && w.size() > 2)
    return w.substr(2);
  return std::nullopt;
}

InputKind kindOfLanguage(const std::string &lang) {
  if (lang == "c" || lang == "cpp-output")
    return InputKind::CSource;
  if (lang.find("header") != std::string::npos)
    return InputKind::Header;
  return InputKind::OtherSource;
}

InputKind kindOfFile(const std::string &path) {
  static const std::set<std::string, std::less<>> cExt = {".c", ".i"};
  static const std::set<std::string, std::less<>> headerExt = {".h",   ".hh", ".hpp", ".hxx",
                                                               ".h++", ".H",  ".hp"};
  static const std::set<std::string, std::less<>> otherExt = {
      ".cc", ".cp", ".cxx", ".cpp",  ".CPP", ".c++",  ".C",    ".ii", ".m",
      ".mi", ".mm", ".M",   ".mii",  ".s",   ".S",    ".sx",   ".ll", ".bc",
      ".cu", ".cl", ".hip", ".cppm", ".ccm", ".cxxm", ".c++m", ".ixx"};
  std::string ext = extension(path);
  if (cExt.count(ext))
    return InputKind::CSource;
  if (headerExt.count(ext))
    return InputKind::Header;
  if (otherExt.count(ext))
    return InputKind::OtherSource;
  return InputKind::LinkerInput;
}

// The command line cut into options (with their values) and inputs, each input's kind
// decided by the -x in effect before it or by its extension, as the driver does.
std::vector<Token> tokenize(const std::vector<std::string> &args) {
  std::vector<Token> tokens;
  std::optional<std::string> language;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    Token t;
    t.arg = i;
    t.words = {a};
    if (a == "-") {
      t.input = true;
      t.kind = InputKind::Stdin;
    } else if (a.empty() || a[0] != '-') {
      t.input = true;
      t.kind = language ? kindOfLanguage(*language) : kindOfFile(a);
    } else if (separateValueOptions().count(a) && i + 1 < args.size()) {
      t.words.push_back(args[++i]);
    }
    if (auto lang = languageOption(t))
      language = *lang == "none" ? std::nullopt : lang;
    tokens.push_back(std::move(t));
  }
  return tokens;
}

std::vector<std::string> flatten(const std::vector<Token> &tokens) {
  std::vector<std::string> out;
  for (const Token &t : tokens)
    out.insert(out.end(), t.words.begin(), t.words.end());
  return out;
}

// The -o value of a token that is one (`-o x`, `-ox`, `--output=x`).
std::optional<std::string> outputOption(const Token &t) {
  if (t.input)
    return std::nullopt;
  const std::string &w = t.first();
  if ((w == "-o" || w == "--output") && t.words.size() == 2)
    return t.words[1];
  if (t.single() && startsWith(w, "--output="))
    return w.substr(9);
  if (t.single() && startsWith(w, "-o") && w.size() > 2 && !startsWith(w, "-obj"))
    return w.substr(2);
  return std::nullopt;
}

bool isLibraryOption(const Token &t) { return !t.input && startsWith(t.first(), "-l"); }

// Flags that would make the objects differ from the bitcode rootline replays, or add
// instrumentation of their own: LTO, sanitizers, profiling and coverage, optimisation.
bool isDroppedFlag(const Token &t) {
  if (t.input || !t.single())
    return false;
  const std::string &w = t.first();
  return w == "-flto" || startsWith(w, "-flto=") || startsWith(w, "-fsanitize") ||
         startsWith(w, "-fno-sanitize") || startsWith(w, "-fprofile") ||
         startsWith(w, "-fcoverage") || w == "--coverage" || w == "-ftest-coverage" ||
         (startsWith(w, "-O") && !startsWith(w, "-Obj"));
}

// Whether a -g flag turns debug info on (true), off (false), or only tunes it (nullopt:
// -gz, -gsplit-dwarf, -gno-column-info... do not ask for debug info by themselves).
std::optional<bool> debugInfoSetting(const std::string &w) {
  static const std::set<std::string, std::less<>> on = {"-g",
                                                        "-g1",
                                                        "-g2",
                                                        "-g3",
                                                        "-ggdb",
                                                        "-ggdb1",
                                                        "-ggdb2",
                                                        "-ggdb3",
                                                        "-glldb",
                                                        "-gsce",
                                                        "-gdbx",
                                                        "-gfull",
                                                        "-gused",
                                                        "-gline-tables-only",
                                                        "-gline-directives-only"};
  if (on.count(w) || w == "-gdwarf" || startsWith(w, "-gdwarf-"))
    return true;
  if (w == "-g0" || w == "-ggdb0")
    return false;
  return std::nullopt;
}

// Whether the project's flags leave debug info on (the last level flag wins).
bool asksForDebugInfo(const std::vector<Token> &tokens) {
  bool on = false;
  for (const Token &t : tokens)
    if (!t.input && t.single())
      if (auto s = debugInfoSetting(t.first()))
        on = *s;
  return on;
}

Token addedFlag(const std::string &flag) {
  Token t;
  t.words = {flag};
  return t;
}

std::vector<Token> rewriteTokens(const std::vector<std::string> &args) {
  std::vector<Token> tokens = tokenize(args);
  std::vector<Token> out;
  for (const std::string &f : lenientDiagnosticFlags())
    out.push_back(addedFlag(f));
  out.push_back(addedFlag("-O0"));
  for (Token &t : tokens)
    if (!isDroppedFlag(t))
      out.push_back(std::move(t));
  // After the project's flags, so that a -g0 of theirs does not win.
  if (!asksForDebugInfo(out))
    out.push_back(addedFlag("-g"));
  return out;
}

// Flags that make the compile write a file named after the project's output (a
// dependency file, a compilation-database fragment, saved temporaries): the bitcode
// compile must not overwrite what the object compile wrote.
bool isSideOutputFlag(const Token &t) {
  if (t.input)
    return false;
  const std::string &w = t.first();
  static const std::set<std::string, std::less<>> exact = {"-MD",
                                                           "-MMD",
                                                           "-MP",
                                                           "--write-dependencies",
                                                           "--write-user-dependencies",
                                                           "-dependency-file",
                                                           "-dependency-dot",
                                                           "-serialize-diagnostics",
                                                           "--serialize-diagnostics"};
  if (exact.count(w))
    return true;
  for (std::string_view joined : {"-MF", "-MT", "-MQ", "-MJ", "-save-temps"})
    if (startsWith(w, joined))
      return true;
  if (startsWith(w, "-Wp,")) {
    // -Wp,-MD,file and -Wp,-MMD,file (the Linux kernel's style).
    std::string items = w.substr(3) + ",";
    return items.find(",-MD,") != std::string::npos || items.find(",-MMD,") != std::string::npos;
  }
  return false;
}

bool isCompileOnlyFlag(const Token &t) { return !t.input && t.first() == "-c"; }

// The rewritten command line reduced to compiling the source at args[input] alone:
// the other inputs, the libraries, -o and -c go (the caller adds its own -c and -o).
std::vector<Token> oneSourceTokens(const std::vector<std::string> &args, std::size_t input) {
  std::vector<Token> out;
  for (Token &t : rewriteTokens(args)) {
    if (t.input ? t.arg != input : (isLibraryOption(t) || outputOption(t) || isCompileOnlyFlag(t)))
      continue;
    out.push_back(std::move(t));
  }
  return out;
}

// The length of the UTF-8 sequence starting at s[i] if it is a valid one, else 0.
std::size_t validUtf8Length(const std::string &s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = byte(i);
  std::size_t len;
  uint32_t cp;
  if (b >= 0xC2 && b <= 0xDF) {
    len = 2;
    cp = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    len = 3;
    cp = b & 0x0F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    len = 4;
    cp = b & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size())
    return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
  static constexpr std::array<uint32_t, 5> minimum = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < minimum[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
    return 0;
  return len;
}

} // namespace

Invocation classify(const std::vector<std::string> &args, Mode mode) {
  Invocation inv;
  std::vector<Token> tokens = tokenize(args);
  bool compileOnly = false;
  for (const Token &t : tokens) {
    if (t.input) {
      inv.inputs.push_back({t.arg, t.first(), t.kind});
      continue;
    }
    if (auto out = outputOption(t))
      inv.output = *out;
    const std::string &w = t.first();
    compileOnly |= w == "-c";
    inv.shared |= w == "-shared";
    // Runs that produce no object or program: preprocessing, assembly, dependency
    // lists, syntax checks, queries about the compiler itself.
    static const std::set<std::string, std::less<>> noObject = {
        "-E",         "-S",           "-M",           "-MM",        "-###",
        "--version",  "-dumpversion", "-dumpmachine", "-dumpspecs", "-fsyntax-only",
        "-emit-llvm", "--analyze",    "--precompile", "--help",     "-help"};
    bool query = startsWith(w, "-print-") || startsWith(w, "--print-");
    auto lang = languageOption(t);
    if (inv.why.empty() && (noObject.count(w) || query))
      inv.why = w;
    if (inv.why.empty() && lang && startsWith(*lang, "assembler"))
      inv.why = "-x " + *lang;
  }
  auto passThrough = [&](const std::string &why) {
    inv.action = Action::PassThrough;
    if (inv.why.empty())
      inv.why = why;
    return inv;
  };
  if (!mode.haveStore)
    return passThrough("ROOTLINE_CC_STORE is not set");
  if (!inv.why.empty())
    return passThrough(inv.why);
  if (inv.inputs.empty())
    return passThrough("no input files");
  if (inv.output == "-")
    return passThrough("output to stdout");
  for (const Input &in : inv.inputs) {
    if (in.kind == InputKind::Stdin)
      return passThrough("source from stdin");
    if (in.kind == InputKind::Header)
      return passThrough("precompiled header " + in.path);
  }
  if (mode.cxx && compileOnly)
    return passThrough("C++ compile");
  inv.action = compileOnly ? Action::Compile : Action::Link;
  return inv;
}

bool isProbeSource(const std::string &path) { return startsWith(baseName(path), "conftest."); }

bool needsBitcode(const Input &in) {
  return in.kind == InputKind::CSource && !isProbeSource(in.path);
}

std::vector<std::string> rewriteArgs(const std::vector<std::string> &args) {
  return flatten(rewriteTokens(args));
}

std::vector<std::string> bitcodeCompileArgs(const std::vector<std::string> &args, std::size_t input,
                                            const std::string &bcOut,
                                            const std::string &prefixMap) {
  std::vector<Token> tokens = oneSourceTokens(args, input);
  std::erase_if(tokens, isSideOutputFlag);
  std::vector<std::string> out = flatten(tokens);
  // -disable-O0-optnone: rootline instruments and optimises the bitcode later, which
  // optnone would forbid. Value names keep the IR readable in rootline's reports. The
  // object compile already reported unused arguments (-Wa,..., -L) once.
  for (const char *f : {"-emit-llvm", "-c", "-Xclang", "-disable-O0-optnone",
                        "-fno-discard-value-names", "-Wno-unused-command-line-argument"})
    out.push_back(f);
  // The unit's language flags, kept in its debug information (build/language_flags.h).
  for (const auto &f : recordFlagsArgs(languageFlags(flatten(tokens))))
    out.push_back(f);
  if (!prefixMap.empty())
    out.push_back("-fdebug-prefix-map=" + prefixMap);
  out.push_back("-o");
  out.push_back(bcOut);
  return out;
}

std::vector<std::string> sourceObjectArgs(const std::vector<std::string> &args, std::size_t input,
                                          const std::string &objOut) {
  std::vector<std::string> out = flatten(oneSourceTokens(args, input));
  // The link's own flags (-L, -Wl,..., -shared) are unused in a compile: not worth a
  // warning, nor an error under the project's -Werror.
  for (const char *f : {"-Wno-unused-command-line-argument", "-c", "-o"})
    out.push_back(f);
  out.push_back(objOut);
  return out;
}

std::vector<std::string> linkArgs(const std::vector<std::string> &args,
                                  const std::map<std::size_t, std::string> &objects) {
  std::vector<Token> tokens = rewriteTokens(args);
  std::vector<std::string> out;
  for (const Token &t : tokens) {
    if (languageOption(t))
      continue;
    auto obj = t.input ? objects.find(t.arg) : objects.end();
    if (obj != objects.end())
      out.push_back(obj->second);
    else
      out.insert(out.end(), t.words.begin(), t.words.end());
  }
  return out;
}

std::string defaultObjectName(const std::string &source) {
  std::string base = baseName(source);
  std::size_t dot = base.rfind('.');
  return (dot == std::string::npos || dot == 0 ? base : base.substr(0, dot)) + ".o";
}

std::string linkOutput(const Invocation &inv) { return inv.output.value_or("a.out"); }

bool skipLinkLog(const Invocation &inv, const std::string &output, const std::string &cwd) {
  if (startsWith(baseName(output), "conftest"))
    return true;
  for (const Input &in : inv.inputs)
    if (isProbeSource(in.path))
      return true;
  std::string dir = cwd + "/";
  return dir.find("/CMakeFiles/") != std::string::npos &&
         (dir.find("CMakeScratch") != std::string::npos ||
          dir.find("CMakeTmp") != std::string::npos);
}

std::string jsonString(const std::string &s) {
  static const char *hex = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      if (std::size_t len = validUtf8Length(s, i)) {
        out.append(s, i, len);
        i += len;
        continue;
      }
    }
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (c < 0x20 || c >= 0x80) {
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 0xF];
      } else {
        out += static_cast<char>(c);
      }
    }
    ++i;
  }
  return out + "\"";
}

std::string linkLogLine(const std::string &cwd, const std::vector<std::string> &args,
                        const std::string &output, bool shared) {
  std::string line = "{\"cwd\": " + jsonString(cwd) + ", \"args\": [";
  for (std::size_t i = 0; i < args.size(); ++i)
    line += (i ? ", " : "") + jsonString(args[i]);
  line += "], \"output\": " + jsonString(output) + ", \"shared\": ";
  line += shared ? "true" : "false";
  return line + "}\n";
}

} // namespace rootline::cc
