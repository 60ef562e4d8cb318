// rootline-cc's reading and rewriting of compiler command lines (src/build/cc_wrapper,
// docs/build-wrapper.md), on the command lines real build systems write.
#include "build/cc_wrapper/cc_args.h"
#include "build/language_flags.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

using namespace rootline::cc;

namespace {

// A command line as a shell splits it, without the compiler name.
std::vector<std::string> argWords(const std::string &line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

// The leniency flags and -O0, then `rest`: what every rewritten command line starts with.
std::vector<std::string> rewritten(const std::vector<std::string> &rest) {
  std::vector<std::string> out = rootline::lenientDiagnosticFlags();
  out.push_back("-O0");
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

const std::vector<std::string> kBitcodeFlags = {"-emit-llvm",
                                                "-c",
                                                "-Xclang",
                                                "-disable-O0-optnone",
                                                "-fno-discard-value-names",
                                                "-Wno-unused-command-line-argument"};

Invocation classifyC(const std::string &line) { return classify(argWords(line), {}); }

bool contains(const std::vector<std::string> &v, const std::string &w) {
  return std::find(v.begin(), v.end(), w) != v.end();
}

} // namespace

TEST_CASE("an automake compile gets its object and a bitcode compile without the .deps files",
          "[cc-args]") {
  auto args = argWords("-DHAVE_CONFIG_H -I. -I..  -g -O2 -MT foo.o -MD -MP -MF .deps/foo.Tpo -c "
                       "-o foo.o foo.c");
  Invocation inv = classify(args, {});
  REQUIRE(inv.action == Action::Compile);
  REQUIRE(inv.inputs.size() == 1); // foo.o (the -MT and -o values) and .deps/foo.Tpo are not
  CHECK(inv.inputs[0].path == "foo.c");
  CHECK(inv.inputs[0].arg == 14);
  CHECK(inv.inputs[0].kind == InputKind::CSource);
  CHECK(needsBitcode(inv.inputs[0]));
  CHECK(inv.output == "foo.o");
  CHECK_FALSE(inv.shared);

  // -O2 goes, -O0 comes; the project's -g stays and none is added.
  CHECK(rewriteArgs(args) ==
        rewritten(argWords("-DHAVE_CONFIG_H -I. -I.. -g -MT foo.o -MD -MP -MF .deps/foo.Tpo -c -o "
                           "foo.o foo.c")));
  CHECK(bitcodeCompileArgs(args, 14, "/store/.tmp-1.bc", "") ==
        rewritten(argWords("-DHAVE_CONFIG_H -I. -I.. -g foo.c")) + kBitcodeFlags +
            std::vector<std::string>{"-Xclang", "-dwarf-debug-flags", "-Xclang",
                                     "-DHAVE_CONFIG_H -I. -I.."} +
            argWords("-o /store/.tmp-1.bc"));
}

TEST_CASE("a CMake compile loses -O3, gains -g after its flags, and maps the debug prefix",
          "[cc-args]") {
  auto args = argWords("-O3 -DNDEBUG -o CMakeFiles/x.dir/a.c.o -c /abs/a.c");
  Invocation inv = classify(args, {});
  REQUIRE(inv.action == Action::Compile);
  REQUIRE(inv.inputs.size() == 1);
  CHECK(inv.inputs[0].path == "/abs/a.c");
  CHECK(inv.output == "CMakeFiles/x.dir/a.c.o");
  CHECK(rewriteArgs(args) ==
        rewritten(argWords("-DNDEBUG -o CMakeFiles/x.dir/a.c.o -c /abs/a.c -g")));
  CHECK(bitcodeCompileArgs(args, 5, "/s/t.bc", "/abs=/src") ==
        rewritten(argWords("-DNDEBUG /abs/a.c -g")) + kBitcodeFlags +
            argWords("-Xclang -dwarf-debug-flags -Xclang -DNDEBUG") +
            argWords("-fdebug-prefix-map=/abs=/src -o /s/t.bc"));
  CHECK(defaultObjectName("/abs/a.c") == "a.o");
  CHECK(defaultObjectName("src/parse.tab.c") == "parse.tab.o");
}

TEST_CASE("a link of objects and archives is a link with nothing to compile", "[cc-args]") {
  auto args = argWords("-g -O2 -o prog main.o libutil.a -lm");
  Invocation inv = classify(args, {});
  REQUIRE(inv.action == Action::Link);
  REQUIRE(inv.inputs.size() == 2); // -lm is not a file input
  CHECK(inv.inputs[0].kind == InputKind::LinkerInput);
  CHECK(inv.inputs[1].kind == InputKind::LinkerInput);
  CHECK(std::none_of(inv.inputs.begin(), inv.inputs.end(), needsBitcode));
  CHECK(linkOutput(inv) == "prog");
  CHECK(rewriteArgs(args) == rewritten(argWords("-g -o prog main.o libutil.a -lm")));
  CHECK(linkArgs(args, {}) == rewriteArgs(args));

  CHECK(linkOutput(classifyC("main.o")) == "a.out");
  CHECK(classifyC("-shared -o libu.so u.o").shared);
}

TEST_CASE("a compile-and-link compiles each source alone, then links the objects in place",
          "[cc-args]") {
  auto args = argWords("-o prog a.c b.c -lm");
  Invocation inv = classify(args, {});
  REQUIRE(inv.action == Action::Link);
  REQUIRE(inv.inputs.size() == 2);
  CHECK(inv.inputs[0].arg == 2);
  CHECK(inv.inputs[1].arg == 3);
  CHECK(needsBitcode(inv.inputs[0]));
  CHECK(needsBitcode(inv.inputs[1]));
  // Neither the other source, nor the library, nor the program's -o.
  CHECK(sourceObjectArgs(args, 2, "/t/0-a.o") ==
        rewritten(argWords("a.c -g -Wno-unused-command-line-argument -c -o /t/0-a.o")));
  CHECK(sourceObjectArgs(args, 3, "/t/1-b.o") ==
        rewritten(argWords("b.c -g -Wno-unused-command-line-argument -c -o /t/1-b.o")));
  CHECK(linkArgs(args, {{2, "/t/0-a.o"}, {3, "/t/1-b.o"}}) ==
        rewritten(argWords("-o prog /t/0-a.o /t/1-b.o -lm -g")));
  // The log records the sources as the project gave them.
  CHECK(rewriteArgs(args) == rewritten(argWords("-o prog a.c b.c -lm -g")));
}

TEST_CASE("runs that make no object or program pass through", "[cc-args]") {
  for (const char *line : {"-E foo.c",
                           "-S foo.c -o foo.s",
                           "-M foo.c",
                           "-MM -I. foo.c",
                           "-### -c foo.c",
                           "--version",
                           "-v",
                           "-dumpversion",
                           "-dumpmachine",
                           "-print-file-name=libc.so",
                           "-print-prog-name=ld",
                           "-c -x assembler-with-cpp start.S",
                           "-x assembler -c a.s",
                           "-fsyntax-only foo.c",
                           "-c -emit-llvm foo.c",
                           "-DX=1 -I include",
                           "-c foo.h",
                           "-x c-header -c config.h -o config.h.pch",
                           "-x c -c - -o stdin.o",
                           "-c foo.c -o -"}) {
    INFO(line);
    Invocation inv = classifyC(line);
    CHECK(inv.action == Action::PassThrough);
    CHECK_FALSE(inv.why.empty());
  }
  CHECK(classifyC("-E foo.c").why == "-E");
  CHECK(classifyC("-I include").why == "no input files");
  // Dependency files written beside a compile do not make it a preprocessing run.
  CHECK(classifyC("-MD -MP -c foo.c").action == Action::Compile);
  CHECK(classifyC("-MMD -c foo.c").action == Action::Compile);
  // Without a store everything passes through.
  Invocation noStore = classify(argWords("-c foo.c"), {false, false});
  CHECK(noStore.action == Action::PassThrough);
  CHECK(noStore.why == "ROOTLINE_CC_STORE is not set");
}

TEST_CASE("C++ mode passes compiles through and still logs links", "[cc-args]") {
  CHECK(classify(argWords("-O2 -c a.cc"), {true, true}).action == Action::PassThrough);
  CHECK(classify(argWords("-O2 -o prog a.o b.o"), {true, true}).action == Action::Link);
  CHECK(classify(argWords("-O2 -c a.cc"), {false, true}).action == Action::Compile);
}

TEST_CASE("autoconf probes get no bitcode and their links and CMake's are not logged",
          "[cc-args]") {
  Invocation probe = classifyC("-c -g -O2 conftest.c");
  REQUIRE(probe.action == Action::Compile);
  CHECK(isProbeSource("conftest.c"));
  CHECK(isProbeSource("/tmp/x/conftest.c"));
  CHECK_FALSE(isProbeSource("conftest_helper.c"));
  CHECK_FALSE(needsBitcode(probe.inputs[0]));
  CHECK(needsBitcode(classifyC("-c conf.c").inputs[0]));

  Invocation plain = classifyC("-o prog main.o");
  CHECK(skipLinkLog(classifyC("-o conftest conftest.o"), "/b/conftest", "/b"));
  CHECK(skipLinkLog(plain, "/b/conftest.exe", "/b"));
  // autoconf's first probe links without -o: an a.out from conftest.c.
  CHECK(skipLinkLog(classifyC("-g conftest.c"), "/b/a.out", "/b"));
  CHECK(skipLinkLog(plain, "/b/prog", "/b/CMakeFiles/CMakeScratch/TryCompile-abc"));
  CHECK(skipLinkLog(plain, "/b/cmTC_1", "/b/CMakeFiles/CMakeTmp"));
  CHECK_FALSE(skipLinkLog(plain, "/b/prog", "/b"));
  CHECK_FALSE(skipLinkLog(plain, "/b/prog", "/b/CMakeFiles/prog.dir"));
  CHECK_FALSE(skipLinkLog(plain, "/b/prog", "/b/CMakeTmp"));
}

TEST_CASE("LTO, sanitizers, profiling, coverage and optimisation flags go, the rest stays",
          "[cc-args]") {
  auto args = argWords("-flto -flto=thin -fsanitize=address,undefined -fno-sanitize=alignment "
                       "-fsanitize-recover=all -fprofile-instr-generate -fprofile-arcs "
                       "-fcoverage-mapping --coverage -Os -Ofast -O -fPIC -pthread -Wall "
                       "-Werror -std=gnu89 -Wl,-O1 -Xclang -O2 -ObjC -c a.c");
  CHECK(rewriteArgs(args) == rewritten(argWords("-fPIC -pthread -Wall -Werror -std=gnu89 -Wl,-O1 "
                                                "-Xclang -O2 -ObjC -c a.c -g")));
  // The leniency flags come first so that the project's own -Werror=... still wins.
  auto own = rewriteArgs(argWords("-Werror=implicit-function-declaration -c a.c"));
  auto lenient = std::find(own.begin(), own.end(), "-Wno-error=implicit-function-declaration");
  auto strict = std::find(own.begin(), own.end(), "-Werror=implicit-function-declaration");
  CHECK(lenient < strict);
}

TEST_CASE("a -g is added unless the project's flags leave debug info on", "[cc-args]") {
  CHECK(rewriteArgs(argWords("-ggdb3 -c a.c")).back() == "a.c");
  CHECK(rewriteArgs(argWords("-gdwarf-4 -c a.c")).back() == "a.c");
  CHECK(rewriteArgs(argWords("-gline-tables-only -c a.c")).back() == "a.c");
  // -g0 turns it off, -gz and -gsplit-dwarf only tune it: -g goes after them.
  CHECK(rewriteArgs(argWords("-g0 -c a.c")).back() == "-g");
  CHECK(rewriteArgs(argWords("-g -g0 -c a.c")).back() == "-g");
  CHECK(rewriteArgs(argWords("-gz -c a.c")).back() == "-g");
  CHECK(rewriteArgs(argWords("-gsplit-dwarf -c a.c")).back() == "-g");
}

TEST_CASE("an input's language is that of the -x before it, and the link drops -x", "[cc-args]") {
  Invocation inv = classifyC("-c -x c prog.txt -x c++ util.c -x none main.c -xc gen.in asm.S");
  REQUIRE(inv.action == Action::Compile);
  REQUIRE(inv.inputs.size() == 5);
  CHECK(inv.inputs[0].kind == InputKind::CSource);     // prog.txt as C
  CHECK(inv.inputs[1].kind == InputKind::OtherSource); // util.c as C++
  CHECK(inv.inputs[2].kind == InputKind::CSource);     // main.c by its name again
  CHECK(inv.inputs[3].kind == InputKind::CSource);     // -xc joined
  CHECK(inv.inputs[4].kind == InputKind::CSource);     // still under -xc
  CHECK(classifyC("-c a.S b.s c.cc d.cpp e.m").inputs.size() == 5);
  for (const Input &in : classifyC("-c a.S b.s c.cc d.cpp e.m").inputs)
    CHECK(in.kind == InputKind::OtherSource);
  for (const Input &in : classifyC("-o p a.o b.a c.so.1 d.lo noext").inputs)
    CHECK(in.kind == InputKind::LinkerInput);

  // The bitcode compile keeps the -x before its source; the link drops every -x, or the
  // objects standing for the sources would be read as C.
  auto args = argWords("-x c -o prog gen.in main.o");
  Invocation link = classify(args, {});
  REQUIRE(link.action == Action::Link);
  REQUIRE(link.inputs[0].kind == InputKind::CSource);
  CHECK(bitcodeCompileArgs(args, 4, "t.bc", "") ==
        rewritten(argWords("-x c gen.in -g")) + kBitcodeFlags + argWords("-o t.bc"));
  CHECK(linkArgs(args, {{4, "/t/0-gen.o"}}) == rewritten(argWords("-o prog /t/0-gen.o main.o -g")));
}

TEST_CASE("the bitcode compile drops every dependency-file flag", "[cc-args]") {
  auto args = argWords("-Wp,-MD,.foo.o.d -Wp,-MMD,dir/.bar.d -MFdeps.d -MT x.o -MTy.o -MQ $(z) "
                       "-MQw -MJ cdb.json -save-temps=obj -Wp,-DFOO=1 -Wa,--noexecstack -c foo.c "
                       "-o foo.o");
  Invocation inv = classify(args, {});
  REQUIRE(inv.action == Action::Compile);
  REQUIRE(inv.inputs.size() == 1); // `$(z)`, `x.o` and `cdb.json` are option values
  std::size_t src = inv.inputs[0].arg;
  CHECK(args[src] == "foo.c");
  CHECK(bitcodeCompileArgs(args, src, "t.bc", "") ==
        rewritten(argWords("-Wp,-DFOO=1 -Wa,--noexecstack foo.c -g")) + kBitcodeFlags +
            argWords("-Xclang -dwarf-debug-flags -Xclang -Wp,-DFOO=1") + argWords("-o t.bc"));
  // The object compile keeps them all: the project's build reads its dependency files.
  CHECK(contains(rewriteArgs(args), "-Wp,-MD,.foo.o.d"));
  CHECK(contains(rewriteArgs(args), "-MFdeps.d"));
}

TEST_CASE("option values are never taken for inputs", "[cc-args]") {
  Invocation inv = classifyC("-I include -include config.h -isystem sys -D X -U Y -L lib "
                             "-l m -Xlinker -Map=out.map -MF deps.d -o out.o -c a.c");
  REQUIRE(inv.inputs.size() == 1);
  CHECK(inv.inputs[0].path == "a.c");
  CHECK(inv.output == "out.o");
  CHECK(classifyC("-c a.c -oobj.o").output == "obj.o");
  CHECK(classifyC("-c a.c --output=x.o").output == "x.o");
}

TEST_CASE("JSON strings escape quotes, controls and bytes that are not UTF-8", "[cc-args]") {
  CHECK(jsonString("plain") == "\"plain\"");
  CHECK(jsonString("-DMSG=\"hi\\n\"") == "\"-DMSG=\\\"hi\\\\n\\\"\"");
  CHECK(jsonString("a\nb\tc\r\x01") == "\"a\\nb\\tc\\r\\u0001\"");
  CHECK(jsonString("caf\xC3\xA9 \xE2\x82\xAC") == "\"caf\xC3\xA9 \xE2\x82\xAC\""); // kept
  CHECK(jsonString("bad\xFF") == "\"bad\\u00ff\"");
  CHECK(jsonString("\xC0\xAF") == "\"\\u00c0\\u00af\"");            // an overlong '/'
  CHECK(jsonString("\xED\xA0\x80") == "\"\\u00ed\\u00a0\\u0080\""); // a surrogate
  CHECK(jsonString("\xE2\x82") == "\"\\u00e2\\u0082\"");            // cut short

  std::string line = linkLogLine("/b", {"clang-19", "-o", "p q", "m\xFF.o"}, "/b/p q", true);
  CHECK(line == "{\"cwd\": \"/b\", \"args\": [\"clang-19\", \"-o\", \"p q\", \"m\\u00ff.o\"], "
                "\"output\": \"/b/p q\", \"shared\": true}\n");
  CHECK(std::count(line.begin(), line.end(), '\n') == 1);
  auto j = nlohmann::json::parse(line);
  CHECK(j["args"][3] == "m\xC3\xBF.o");
  CHECK(j["shared"] == true);
}
