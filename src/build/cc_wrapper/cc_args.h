// rootline-cc's reading of a compiler command line (docs/build-wrapper.md): what one
// invocation does (pass through, compile, link), which inputs get bitcode, and the
// command lines the wrapper runs instead. Pure functions: no files, no environment.
//
// `args` everywhere is the project's command line without argv[0] (the compiler name);
// the functions that make command lines return them without it too. An input is named by
// its index in `args`, which stays valid whatever the rewrites add or drop.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rootline::cc {

enum class Action {
  PassThrough, // run the real compiler with the arguments unchanged, nothing else
  Compile,     // -c: objects, and bitcode for the C sources
  Link,        // sources (if any) compiled first, then the link, which is logged
};

enum class InputKind {
  CSource,     // .c, .i, or forced by -x c / -x cpp-output: gets bitcode
  OtherSource, // .cc, .s, .S, .m, .ll, -x c++...: compiled, no bitcode
  Header,      // .h, -x c-header...: a precompiled header, passed through
  LinkerInput, // .o, .a, .so and anything the driver hands to the linker
  Stdin,       // "-"
};

struct Input {
  std::size_t arg = 0; // index in args
  std::string path;
  InputKind kind = InputKind::LinkerInput;

  bool isSource() const { return kind == InputKind::CSource || kind == InputKind::OtherSource; }
};

struct Invocation {
  Action action = Action::PassThrough;
  std::string why;                   // for PassThrough: the flag or condition that decided it
  std::vector<Input> inputs;         // files named on the command line, in order (not -l)
  std::optional<std::string> output; // the -o value as given
  bool shared = false;               // -shared
};

struct Mode {
  bool cxx = false;      // rootline-c++: compiles pass through, links are still logged
  bool haveStore = true; // ROOTLINE_CC_STORE set; without it everything passes through
};

Invocation classify(const std::vector<std::string> &args, Mode mode);

// An autoconf probe (conftest.c...): compiled without bitcode.
bool isProbeSource(const std::string &path);
// Whether a C source gets bitcode.
bool needsBitcode(const Input &in);

// The project's arguments with what must not reach the objects or the bitcode dropped
// (LTO, sanitizers, profiling, coverage, every -O), -O0 and the leniency flags before
// them, -g after them unless they ask for debug info. The object compile runs this.
std::vector<std::string> rewriteArgs(const std::vector<std::string> &args);

// The bitcode compile of the source at args[input]: the rewritten arguments with every
// other input, -o, -c and the dependency-file flags removed, plus -emit-llvm -c,
// optimisations allowed at -O0, value names kept, output `bcOut`, and
// -fdebug-prefix-map=`prefixMap` when it is not empty.
std::vector<std::string> bitcodeCompileArgs(const std::vector<std::string> &args, std::size_t input,
                                            const std::string &bcOut, const std::string &prefixMap);

// For a link that names sources: the compile of the source at args[input] alone into
// `objOut` (rewritten arguments, -c, the link's other inputs, -l and -o removed).
std::vector<std::string> sourceObjectArgs(const std::vector<std::string> &args, std::size_t input,
                                          const std::string &objOut);

// The link: the rewritten arguments with each input index in `objects` replaced by that
// object, in place, and the -x options dropped (they would make the objects sources).
std::vector<std::string> linkArgs(const std::vector<std::string> &args,
                                  const std::map<std::size_t, std::string> &objects);

// The object `cc -c src` writes when there is no -o: the base name with .o, in cwd.
std::string defaultObjectName(const std::string &source);
// What a link writes: its -o, else a.out.
std::string linkOutput(const Invocation &inv);
// Links not worth logging: autoconf probes (an output conftest*, or a conftest.c
// linked to a.out) and CMake try_compile projects.
bool skipLinkLog(const Invocation &inv, const std::string &output, const std::string &cwd);

// `s` as a JSON string literal, quotes included. Valid UTF-8 is kept; any other byte is
// written \u00XX, so any argument makes valid JSON.
std::string jsonString(const std::string &s);
// One line of the link log, '\n' included.
std::string linkLogLine(const std::string &cwd, const std::vector<std::string> &args,
                        const std::string &output, bool shared);

} // namespace rootline::cc
