// rootline-cc in real builds (docs/build-wrapper.md): clang-19 compiles, ar archives and
// the linker links through the wrapper, and the program names the bitcode of exactly the
// units linked into it, in its non-allocated .rootline_bc section.
#include "test_support.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <unistd.h>

using namespace rootline;
using namespace rootline::test;

namespace {

fs::path wrapperBinary() { return fs::path(rootlineBinary()).parent_path() / "rootline-cc"; }

std::string readBytes(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

// runProcess does not search PATH: `ar` becomes /usr/bin/ar.
std::vector<std::string> resolved(std::vector<std::string> argv) {
  if (argv.empty() || argv[0].find('/') != std::string::npos)
    return argv;
  std::istringstream path(std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin");
  for (std::string dir; std::getline(path, dir, ':');)
    if (!dir.empty() && access((fs::path(dir) / argv[0]).c_str(), X_OK) == 0) {
      argv[0] = (fs::path(dir) / argv[0]).string();
      break;
    }
  return argv;
}

// A build directory with the wrapper's environment: its store, its link log, and a
// TMPDIR of its own to show the wrapper leaves no temporary files behind.
struct WrappedBuild {
  TempDir t;
  fs::path dir = t.path / "src", store = t.path / "store", log = t.path / "links.jsonl",
           tmp = t.path / "tmp";
  std::map<std::string, std::string> env;

  WrappedBuild() {
    fs::create_directories(dir);
    fs::create_directories(tmp);
    env = {{"ROOTLINE_CC_STORE", store.string()},
           {"ROOTLINE_CC_LOG", log.string()},
           {"ROOTLINE_CC_REAL", "clang-19"},
           {"ROOTLINE_CC_PREFIX_MAP", ""},
           {"ROOTLINE_CC_LANG", ""},
           {"TMPDIR", tmp.string()}};
  }

  ProcessResult run(const std::vector<std::string> &argv, const fs::path &cwd = {}) const {
    ProcessSpec spec;
    spec.argv = resolved(argv);
    spec.extraEnv = env;
    spec.workDir = (cwd.empty() ? dir : cwd).string();
    spec.timeoutSeconds = 300;
    return runProcess(spec);
  }
  // The wrapper as the project's CC.
  ProcessResult cc(std::vector<std::string> args) const {
    args.insert(args.begin(), wrapperBinary().string());
    return run(args);
  }
  void source(const std::string &name, const std::string &text) const {
    writeText(dir / name, text);
  }
  std::set<fs::path> storeFiles() const {
    std::set<fs::path> out;
    if (fs::exists(store))
      for (const auto &e : fs::directory_iterator(store))
        out.insert(e.path());
    return out;
  }
  std::vector<nlohmann::json> logEntries() const {
    std::vector<nlohmann::json> out;
    if (fs::exists(log))
      for (const std::string &line : lines(readBytes(log)))
        out.push_back(nlohmann::json::parse(line));
    return out;
  }
  bool tmpIsEmpty() const { return fs::is_empty(tmp); }
};

ProcessResult tool(const std::vector<std::string> &argv) {
  ProcessSpec spec;
  spec.argv = resolved(argv);
  spec.timeoutSeconds = 120;
  return runProcess(spec);
}

// The .rootline_bc section's lines (none when the file has no such section).
std::vector<std::string> bitcodeList(const fs::path &file) {
  TempDir t;
  fs::path out = t.path / "section";
  ProcessResult r = tool({"objcopy", "--dump-section", ".rootline_bc=" + out.string(),
                          file.string(), (t.path / "copy").string()});
  if (!r.exitedWith(0) || !fs::exists(out))
    return {};
  return lines(readBytes(out));
}

// The section's row in `readelf -S -W`: type, address, offset, size, entry size, then the
// flags when it has any, then link, info, alignment. Returns the flags ("" for none).
std::optional<std::string> sectionFlags(const fs::path &file) {
  ProcessResult r = tool({"readelf", "-S", "-W", file.string()});
  for (const std::string &line : lines(r.out)) {
    std::istringstream in(line.substr(line.find(']') + 1));
    std::vector<std::string> cols;
    for (std::string c; in >> c;)
      cols.push_back(c);
    if (line.find(']') == std::string::npos || cols.empty() || cols[0] != ".rootline_bc")
      continue;
    return cols.size() == 10 ? cols[6] : "";
  }
  return std::nullopt;
}

std::string sha256(const fs::path &file) {
  ProcessResult r = tool({"sha256sum", file.string()});
  return r.out.substr(0, 64);
}

std::optional<std::string> llvmDis() {
  for (const char *p : {"/usr/bin/llvm-dis-19", "/usr/lib/llvm-19/bin/llvm-dis"})
    if (fs::exists(p))
      return p;
  return std::nullopt;
}

// Checks one listed bitcode file: in the store, named by its content's SHA-256, bitcode
// with full debug info, value names and no optnone. Returns its source_filename.
std::string checkBitcode(const WrappedBuild &b, const std::string &listed) {
  INFO("bitcode " << listed);
  fs::path bc(listed);
  CHECK(bc.is_absolute());
  CHECK(bc.parent_path() == b.store);
  REQUIRE(fs::exists(bc));
  CHECK(bc.stem().string() == sha256(bc));
  CHECK(bc.extension() == ".bc");
  CHECK(readBytes(bc).substr(0, 4) == "BC\xC0\xDE");
  auto dis = llvmDis();
  if (!dis)
    return "";
  ProcessResult r = tool({*dis, bc.string(), "-o", "-"});
  REQUIRE(r.exitedWith(0));
  CHECK(r.out.find("!DICompileUnit(") != std::string::npos);
  CHECK(r.out.find("emissionKind: FullDebug") != std::string::npos);
  CHECK(r.out.find("isOptimized: false") != std::string::npos);
  CHECK(r.out.find("optnone") == std::string::npos);
  CHECK(r.out.find("%x.addr") != std::string::npos); // every unit here has a parameter x
  std::size_t at = r.out.find("source_filename = \"");
  REQUIRE(at != std::string::npos);
  at += 19;
  return r.out.substr(at, r.out.find('"', at) - at);
}

const char *kMain = "#include <stdio.h>\n"
                    "int twice(int x);\n"
                    "int main(int x, char **argv) {\n"
                    "  (void)argv;\n"
                    "  printf(\"%d\\n\", twice(20 + x));\n"
                    "  return 0;\n"
                    "}\n";

} // namespace

TEST_CASE("rootline-cc compiles, an archive joins, and the program names its units' bitcode",
          "[cc-wrapper]") {
  WrappedBuild b;
  b.source("main.c", kMain);
  b.source("twice.c", "int twice(int x) { return 2 * x; }\n");
  b.source("unused.c", "int never_called(int x) { return x + 7; }\n");
  for (const char *src : {"main.c", "twice.c", "unused.c"}) {
    ProcessResult r = b.cc({"-O2", "-Wall", "-c", src});
    INFO(src << ": " << r.err);
    REQUIRE(r.exitedWith(0));
    CHECK(r.err.empty());
  }
  CHECK(b.storeFiles().size() == 3);
  std::vector<std::string> unusedList = bitcodeList(b.dir / "unused.o");
  REQUIRE(unusedList.size() == 1);

  REQUIRE(b.run({"ar", "rcs", "libu.a", "twice.o", "unused.o"}).exitedWith(0));
  ProcessResult link = b.cc({"-O2", "-o", "prog", "main.o", "libu.a", "-Wl,--gc-sections"});
  INFO(link.err);
  REQUIRE(link.exitedWith(0));
  ProcessResult run = b.run({(b.dir / "prog").string()});
  CHECK(run.exitedWith(0));
  CHECK(run.out == "42\n");

  // Not allocated: no 'A' flag, so it neither loads into memory nor goes with
  // --gc-sections.
  auto flags = sectionFlags(b.dir / "prog");
  REQUIRE(flags);
  CHECK(flags->find('A') == std::string::npos);
  CHECK(sectionFlags(b.dir / "main.o") == flags);

  std::vector<std::string> list = bitcodeList(b.dir / "prog");
  REQUIRE(list.size() == 2);
  std::set<std::string> sources;
  for (const std::string &bc : list)
    sources.insert(checkBitcode(b, bc));
  if (llvmDis())
    CHECK(sources == std::set<std::string>{"main.c", "twice.c"});
  // The archive member nothing references is not linked in, so not listed.
  CHECK(std::find(list.begin(), list.end(), unusedList[0]) == list.end());
  CHECK(list[0] == bitcodeList(b.dir / "main.o").at(0)); // in link order

  auto entries = b.logEntries();
  REQUIRE(entries.size() == 1);
  const nlohmann::json &e = entries[0];
  CHECK(e["cwd"] == b.dir.string());
  CHECK(e["output"] == (b.dir / "prog").string());
  CHECK(e["shared"] == false);
  std::vector<std::string> args = e["args"];
  CHECK(args.front() == "clang-19");
  CHECK(std::find(args.begin(), args.end(), "-O2") == args.end());
  CHECK(std::find(args.begin(), args.end(), "-O0") != args.end());
  for (const char *a : {"-o", "prog", "main.o", "libu.a", "-Wl,--gc-sections"})
    CHECK(std::find(args.begin(), args.end(), a) != args.end());
  CHECK(b.tmpIsEmpty());
}

TEST_CASE("rootline-cc compiles and links in one command and lists every source", "[cc-wrapper]") {
  WrappedBuild b;
  b.source("x.c", kMain);
  b.source("y.c", "int twice(int x) { return x + x; }\n");
  ProcessResult r = b.cc({"-O3", "-o", "prog2", "x.c", "y.c"});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  CHECK(b.run({(b.dir / "prog2").string()}).out == "42\n");
  std::vector<std::string> list = bitcodeList(b.dir / "prog2");
  REQUIRE(list.size() == 2);
  std::set<std::string> sources;
  for (const std::string &bc : list)
    sources.insert(checkBitcode(b, bc));
  if (llvmDis())
    CHECK(sources == std::set<std::string>{"x.c", "y.c"});
  // The log names the sources as the project gave them; the private objects are gone.
  auto entries = b.logEntries();
  REQUIRE(entries.size() == 1);
  std::vector<std::string> args = entries[0]["args"];
  CHECK(std::find(args.begin(), args.end(), "x.c") != args.end());
  CHECK(std::find(args.begin(), args.end(), "y.c") != args.end());
  CHECK(entries[0]["output"] == (b.dir / "prog2").string());
  CHECK(b.tmpIsEmpty());
  CHECK_FALSE(fs::exists(b.dir / "x.o")); // as with clang: no objects left in the project

  // Without -o a link writes a.out in the current directory.
  REQUIRE(b.cc({"x.c", "y.c"}).exitedWith(0));
  CHECK(fs::exists(b.dir / "a.out"));
  CHECK(b.logEntries().at(1)["output"] == (b.dir / "a.out").string());
}

TEST_CASE("rootline-cc in native-only mode builds and logs as asked and makes no bitcode",
          "[cc-wrapper]") {
  // A revert trial's variant build runs natively: no unit needs its bitcode.
  WrappedBuild b;
  b.env["ROOTLINE_CC_NATIVE_ONLY"] = "1";
  b.source("main.c", kMain);
  b.source("twice.c", "int twice(int x) { return 2 * x; }\n");
  ProcessResult c = b.cc({"-O2", "-c", "twice.c"});
  INFO(c.err);
  REQUIRE(c.exitedWith(0));
  ProcessResult l = b.cc({"-O2", "-o", "prog", "main.c", "twice.o"});
  INFO(l.err);
  REQUIRE(l.exitedWith(0));
  CHECK(b.run({(b.dir / "prog").string()}).out == "42\n");
  CHECK(b.storeFiles().empty());
  CHECK(bitcodeList(b.dir / "twice.o").empty());
  CHECK(bitcodeList(b.dir / "prog").empty());
  REQUIRE(b.logEntries().size() == 1); // the link is still logged
  CHECK(b.logEntries()[0]["output"] == (b.dir / "prog").string());
  CHECK(b.tmpIsEmpty());
  // Any other value is a one-line error, as for the wrapper's other settings.
  b.env["ROOTLINE_CC_NATIVE_ONLY"] = "yes";
  ProcessResult bad = b.cc({"-c", "twice.c"});
  CHECK(bad.exitedWith(2));
  CHECK(bad.err == "rootline-cc: error: ROOTLINE_CC_NATIVE_ONLY must be '0' or '1', not 'yes'\n");
}

TEST_CASE("rootline-cc keeps the build's own behaviour: errors, -E, probes, no store",
          "[cc-wrapper]") {
  WrappedBuild b;
  b.source("bad.c", "int f(void) { return undeclared_name; }\n");
  b.source("ok.c", "#define ANSWER 42\nint answer(int x) { return ANSWER + x; }\n");

  SECTION("a failing compile fails with the compiler's error and stores nothing") {
    ProcessResult r = b.cc({"-c", "bad.c"});
    CHECK_FALSE(r.exitedWith(0));
    CHECK(r.err.find("use of undeclared identifier 'undeclared_name'") != std::string::npos);
    CHECK(r.err.find("rootline-cc") == std::string::npos);
    CHECK_FALSE(fs::exists(b.dir / "bad.o"));
    CHECK(b.storeFiles().empty());
    ProcessResult link = b.cc({"-o", "p", "bad.c"});
    CHECK_FALSE(link.exitedWith(0));
    CHECK(link.err.find("undeclared_name") != std::string::npos);
    CHECK(b.logEntries().empty());
    CHECK(b.tmpIsEmpty());
  }
  SECTION("-E prints exactly what clang prints") {
    ProcessResult wrapped = b.cc({"-E", "-DEXTRA=1", "-O2", "ok.c"});
    ProcessResult plain = b.run({"clang-19", "-E", "-DEXTRA=1", "-O2", "ok.c"});
    REQUIRE(plain.exitedWith(0));
    CHECK(wrapped.exitedWith(0));
    CHECK(wrapped.out == plain.out);
    CHECK(wrapped.out.find("return 42 + x;") != std::string::npos);
    CHECK(b.storeFiles().empty());
  }
  SECTION("autoconf probes compile and link without bitcode or log") {
    b.source("conftest.c", "int main(void) { return 0; }\n");
    REQUIRE(b.cc({"-g", "-O2", "-o", "conftest", "conftest.c"}).exitedWith(0));
    REQUIRE(b.cc({"-c", "conftest.c"}).exitedWith(0));
    CHECK(bitcodeList(b.dir / "conftest").empty());
    CHECK(bitcodeList(b.dir / "conftest.o").empty());
    CHECK(b.storeFiles().empty());
    CHECK(b.logEntries().empty());
  }
  SECTION("LTO and sanitizer flags are dropped: the object is native code") {
    ProcessResult r = b.cc({"-flto", "-fsanitize=address", "-O2", "-c", "ok.c"});
    INFO(r.err);
    REQUIRE(r.exitedWith(0));
    CHECK(readBytes(b.dir / "ok.o").substr(0, 4) == "\x7f"
                                                    "ELF");
    CHECK(bitcodeList(b.dir / "ok.o").size() == 1);
    CHECK(tool({"nm", (b.dir / "ok.o").string()}).out.find("__asan") == std::string::npos);
  }
  SECTION("old C that clang 19 rejects by default still builds") {
    b.source("old.c", "main() { return puts(\"old\") < 0; }\n");
    ProcessResult r = b.cc({"-o", "old", "old.c"});
    INFO(r.err);
    REQUIRE(r.exitedWith(0));
    CHECK(b.run({(b.dir / "old").string()}).out == "old\n");
    CHECK(bitcodeList(b.dir / "old").size() == 1);
  }
  SECTION("a bitcode failure warns in one line and the build goes on") {
    writeText(b.t.path / "not-a-dir", "x");
    b.env["ROOTLINE_CC_STORE"] = (b.t.path / "not-a-dir" / "store").string();
    ProcessResult r = b.cc({"-c", "ok.c"});
    CHECK(r.exitedWith(0));
    CHECK(fs::exists(b.dir / "ok.o"));
    CHECK(r.err.rfind("rootline-cc: warning: no bitcode for ok.c: ", 0) == 0);
    CHECK(lines(r.err).size() == 1);
    CHECK(bitcodeList(b.dir / "ok.o").empty());
  }
  SECTION("without ROOTLINE_CC_STORE it is the plain compiler") {
    b.env["ROOTLINE_CC_STORE"] = "";
    b.source("main.c", kMain);
    b.source("twice.c", "int twice(int x) { return 2 * x; }\n");
    REQUIRE(b.cc({"-c", "twice.c"}).exitedWith(0));
    CHECK(bitcodeList(b.dir / "twice.o").empty());
    CHECK_FALSE(sectionFlags(b.dir / "twice.o").has_value());
    REQUIRE(b.cc({"-o", "prog", "main.c", "twice.o"}).exitedWith(0));
    CHECK(b.run({(b.dir / "prog").string()}).out == "42\n");
    CHECK_FALSE(fs::exists(b.log));
    CHECK_FALSE(fs::exists(b.store));
  }
  SECTION("a missing real compiler is a one-line error") {
    b.env["ROOTLINE_CC_REAL"] = "no-such-compiler-19";
    ProcessResult r = b.cc({"-c", "ok.c"});
    CHECK(r.exitCode == 127);
    CHECK(r.err == "rootline-cc: error: cannot find the compiler 'no-such-compiler-19' (set "
                   "ROOTLINE_CC_REAL)\n");
  }
}

TEST_CASE("rootline-c++ passes C++ compiles through and logs the link", "[cc-wrapper]") {
  WrappedBuild b;
  fs::path cxx = b.t.path / "bin" / "rootline-c++";
  fs::create_directories(cxx.parent_path());
  fs::create_symlink(wrapperBinary(), cxx);
  b.source("twice.c", "int twice(int x) { return 2 * x; }\n");
  b.source("main.cc", "#include <cstdio>\nextern \"C\" int twice(int);\n"
                      "int main() { std::printf(\"%d\\n\", twice(21)); }\n");
  REQUIRE(b.cc({"-c", "twice.c"}).exitedWith(0));
  REQUIRE(b.run({cxx.string(), "-c", "main.cc"}).exitedWith(0));
  CHECK(bitcodeList(b.dir / "main.o").empty());
  ProcessResult link = b.run({cxx.string(), "-o", "mixed", "main.o", "twice.o"});
  INFO(link.err);
  REQUIRE(link.exitedWith(0));
  CHECK(b.run({(b.dir / "mixed").string()}).out == "42\n");
  CHECK(bitcodeList(b.dir / "mixed").size() == 1); // the C unit's
  auto entries = b.logEntries();
  REQUIRE(entries.size() == 1);
  CHECK(entries[0]["args"] ==
        nlohmann::json::array({"clang++-19", "-o", "mixed", "main.o", "twice.o"}));
  CHECK(entries[0]["output"] == (b.dir / "mixed").string());
}

TEST_CASE("an autotools project configured with CC=rootline-cc builds and lists its units",
          "[cc-wrapper][autotools]") {
  WrappedBuild b;
  REQUIRE(fs::exists("/usr/bin/autoreconf")); // scripts/setup.sh installs autoconf, automake
  b.source("configure.ac", "AC_INIT([hello], [1.0])\n"
                           "AM_INIT_AUTOMAKE([foreign subdir-objects])\n"
                           "AC_PROG_CC\n"
                           "AC_PROG_RANLIB\n"
                           "AC_CHECK_FUNCS([strdup])\n"
                           "AC_CONFIG_HEADERS([config.h])\n"
                           "AC_CONFIG_FILES([Makefile])\n"
                           "AC_OUTPUT\n");
  b.source("Makefile.am", "noinst_LIBRARIES = libgreet.a\n"
                          "libgreet_a_SOURCES = greet.c greet.h\n"
                          "bin_PROGRAMS = hello\n"
                          "hello_SOURCES = hello.c\n"
                          "hello_LDADD = libgreet.a\n");
  b.source("greet.h", "const char *greeting(int x);\n");
  b.source("greet.c", "#include \"config.h\"\n#include \"greet.h\"\n"
                      "const char *greeting(int x) { return x > 0 ? \"hello\" : \"bye\"; }\n");
  b.source("hello.c", "#include \"config.h\"\n#include <stdio.h>\n#include \"greet.h\"\n"
                      "int main(int x, char **argv) { (void)argv; puts(greeting(x)); "
                      "return 0; }\n");
  ProcessResult gen = b.run({"autoreconf", "-fi"});
  INFO(gen.err);
  REQUIRE(gen.exitedWith(0));
  ProcessResult conf = b.run({"./configure", "CC=" + wrapperBinary().string()});
  INFO(conf.out << conf.err);
  REQUIRE(conf.exitedWith(0));
  ProcessResult make = b.run({"make", "-j2"});
  INFO(make.out << make.err);
  REQUIRE(make.exitedWith(0));
  CHECK(b.run({(b.dir / "hello").string()}).out == "hello\n");

  // Hundreds of configure probes made no bitcode and no log lines: the store holds the
  // two units and the log the one program.
  CHECK(b.storeFiles().size() == 2);
  std::vector<std::string> list = bitcodeList(b.dir / "hello");
  REQUIRE(list.size() == 2);
  std::set<std::string> sources;
  for (const std::string &bc : list)
    sources.insert(checkBitcode(b, bc));
  if (llvmDis())
    CHECK(sources == std::set<std::string>{"hello.c", "greet.c"});
  auto entries = b.logEntries();
  REQUIRE(entries.size() == 1);
  CHECK(entries[0]["output"] == (b.dir / "hello").string());
  // automake's dependency tracking still works (make moved .deps/*.Tpo into place).
  CHECK(fs::exists(b.dir / ".deps" / "hello.Po"));
  CHECK(b.tmpIsEmpty());
}
