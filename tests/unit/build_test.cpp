#include "rootline/build.h"
#include "rootline/error.h"
#include "build/cache.h"
#include "build/include_stamps.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

using namespace rootline;
using namespace rootline::test;

namespace {

const char *kHello = "#include <stdio.h>\n#include \"msg.h\"\nint main(void) { printf(\"%s "
                     "%d\\n\", MSG, N); return 0; }\n";

BuildRecipe recipeOf(const fs::path &dir, std::vector<std::string> files,
                     std::vector<std::string> flags = {}) {
  BuildRecipe r;
  r.origin = "test";
  for (auto &f : files)
    r.units.push_back({dir / f, flags, dir});
  return r;
}

std::string runExe(const fs::path &exe) {
  ProcessSpec spec;
  spec.argv = {exe.string()};
  auto r = runProcess(spec);
  REQUIRE(r.exitedWith(0));
  return r.out;
}

} // namespace

TEST_CASE("splitFlags splits like a shell", "[build]") {
  auto v = splitFlags("-I inc -DMSG=\"\\\"hi there\\\"\" '-DX=a b'");
  REQUIRE(v.size() == 4);
  CHECK(v[0] == "-I");
  CHECK(v[1] == "inc");
  CHECK(v[2] == "-DMSG=\"hi there\"");
  CHECK(v[3] == "-DX=a b");
}

TEST_CASE("a program builds into one module and runs natively", "[build]") {
  TempDir t;
  writeText(t.path / "msg.h", "#define MSG \"hello\"\n");
  writeText(t.path / "main.c", kHello);
  auto recipe = recipeOf(t.path, {"main.c"}, {"-DN=7"});
  auto mod = buildModule(recipe);
  CHECK(fs::exists(mod.bitcode));
  auto exe = linkExecutable(mod.bitcode, mod.key, "native", {}, {});
  CHECK(runExe(exe.path) == "hello 7\n");
}

TEST_CASE("libm is linked without being asked for", "[build]") {
  TempDir t;
  writeText(t.path / "root.c", "#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                               "int main(int argc, char **argv) {\n"
                               "  double x = argc > 1 ? atof(argv[1]) : 2.0;\n"
                               "  printf(\"%.3f %.1f\\n\", sqrt(x), pow(x, 3));\n"
                               "  return 0;\n}\n");
  auto recipe = recipeOf(t.path, {"root.c"});
  auto mod = buildModule(recipe);
  auto exe = linkExecutable(mod.bitcode, mod.key, "native", {}, {});
  CHECK(runExe(exe.path) == "1.414 8.0\n");
}

TEST_CASE("the build cache hits for unchanged input and misses after a header edit", "[build]") {
  TempDir t;
  writeText(t.path / "msg.h", "#define MSG \"one\"\n");
  writeText(t.path / "main.c", kHello);
  auto recipe = recipeOf(t.path, {"main.c"}, {"-DN=1"});
  auto first = buildModule(recipe);
  auto second = buildModule(recipe);
  CHECK(second.cacheHit);
  CHECK(second.key == first.key);

  writeText(t.path / "msg.h", "#define MSG \"two\"\n");
  auto third = buildModule(recipe);
  CHECK_FALSE(third.cacheHit);
  CHECK(third.key != first.key);
  auto exe = linkExecutable(third.bitcode, third.key, "native", {}, {});
  CHECK(runExe(exe.path) == "two 1\n");

  auto otherFlags = buildModule(recipeOf(t.path, {"main.c"}, {"-DN=2"}));
  CHECK(otherFlags.key != third.key);
}

TEST_CASE("several source files link into one module", "[build]") {
  TempDir t;
  writeText(t.path / "add.c", "int add(int a, int b) { return a + b; }\n");
  writeText(t.path / "main.c", "#include <stdio.h>\nint add(int, int);\nint main(void) { "
                               "printf(\"%d\\n\", add(2, 3)); return 0; }\n");
  auto mod = buildModule(recipeOf(t.path, {"main.c", "add.c"}));
  auto exe = linkExecutable(mod.bitcode, mod.key, "native", {}, {});
  CHECK(runExe(exe.path) == "5\n");
}

TEST_CASE("a compile error names the file and carries clang's diagnostics", "[build]") {
  TempDir t;
  writeText(t.path / "bad.c", "int main(void) { return undefined_name; }\n");
  try {
    buildModule(recipeOf(t.path, {"bad.c"}));
    FAIL("expected an error");
  } catch (const Error &e) {
    CHECK(e.exitCode() == ExitBadInput);
    CHECK(std::string(e.what()).find("bad.c") != std::string::npos);
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
    CHECK(e.detail().find("undefined_name") != std::string::npos);
    CHECK(e.detail().find("error:") != std::string::npos);
  }
}

TEST_CASE("two definitions of main fail to link with a clear error", "[build]") {
  TempDir t;
  writeText(t.path / "a.c", "int main(void) { return 0; }\n");
  writeText(t.path / "b.c", "int main(void) { return 1; }\n");
  try {
    buildModule(recipeOf(t.path, {"a.c", "b.c"}));
    FAIL("expected an error");
  } catch (const Error &e) {
    CHECK(e.exitCode() == ExitBadInput);
    CHECK(std::string(e.what()).find("cannot link") != std::string::npos);
    CHECK(std::string(e.what()).find("main") != std::string::npos);
  }
}

TEST_CASE("recipes come from the command line, rootline.json, then compile_commands.json",
          "[build]") {
  TempDir t;
  writeText(t.path / "src" / "main.c", "#include \"msg.h\"\nint main(void) { return N; }\n");
  writeText(t.path / "inc" / "msg.h", "#define N 4\n");

  SECTION("missing sources are an error") {
    RecipeRequest req;
    req.sources = {(t.path / "nope.c").string()};
    CHECK_THROWS_AS(resolveRecipe(req), Error);
  }
  SECTION("no recipe anywhere is an error naming the options") {
    RecipeRequest req;
    req.projectDir = t.path;
    try {
      resolveRecipe(req);
      FAIL("expected an error");
    } catch (const Error &e) {
      CHECK(std::string(e.what()).find("rootline.json") != std::string::npos);
    }
  }
  SECTION("without a project file, the directory's own .c files") {
    writeText(t.path / "b_util.c", "int twice(int x) { return 2 * x; }\n");
    writeText(t.path / "a_main.c", "int twice(int);\nint main(void) { return twice(3); }\n");
    RecipeRequest req;
    req.projectDir = t.path;
    auto recipe = resolveRecipe(req);
    REQUIRE(recipe.units.size() == 2); // src/main.c in a subdirectory is not one of them
    CHECK(recipe.units[0].source == t.path / "a_main.c");
    CHECK(recipe.units[1].source == t.path / "b_util.c");
    auto mod = buildModule(recipe);
    auto exe = linkExecutable(mod.bitcode, mod.key, "native", {}, recipe.libs);
    ProcessSpec spec;
    spec.argv = {exe.path.string()};
    CHECK(runProcess(spec).exitCode == 6);
  }
  SECTION("rootline.json") {
    writeText(t.path / "rootline.json",
              R"({"sources": ["src/main.c"], "cflags": ["-Iinc"], "libs": ["m"]})");
    RecipeRequest req;
    req.projectDir = t.path;
    auto recipe = resolveRecipe(req);
    REQUIRE(recipe.units.size() == 1);
    CHECK(recipe.units[0].source == t.path / "src" / "main.c");
    CHECK(recipe.libs == std::vector<std::string>{"m"});
    auto mod = buildModule(recipe);
    auto exe = linkExecutable(mod.bitcode, mod.key, "native", {}, recipe.libs);
    ProcessSpec spec;
    spec.argv = {exe.path.string()};
    CHECK(runProcess(spec).exitCode == 4);
  }
  SECTION("malformed rootline.json") {
    writeText(t.path / "rootline.json", "{\"sources\": ");
    RecipeRequest req;
    req.projectDir = t.path;
    CHECK_THROWS_AS(resolveRecipe(req), Error);
  }
  SECTION("compile_commands.json") {
    std::string db = "[{\"directory\": \"" + t.path.string() +
                     "\", \"file\": \"src/main.c\", \"command\": \"cc -Iinc -Wall -O2 -c "
                     "src/main.c -o main.o\"}]";
    writeText(t.path / "compile_commands.json", db);
    RecipeRequest req;
    req.projectDir = t.path;
    auto recipe = resolveRecipe(req);
    REQUIRE(recipe.units.size() == 1);
    CHECK(std::find(recipe.units[0].flags.begin(), recipe.units[0].flags.end(), "-Iinc") !=
          recipe.units[0].flags.end());
    CHECK(std::find(recipe.units[0].flags.begin(), recipe.units[0].flags.end(), "-O2") ==
          recipe.units[0].flags.end());
    auto mod = buildModule(recipe);
    CHECK(fs::exists(mod.bitcode));
  }
}

TEST_CASE("compile_commands.json with several programs: --target picks one and its library",
          "[build][target]") {
  TempDir t;
  writeText(t.path / "lib.c", "int twice(int x) { return 2 * x; }\n");
  writeText(t.path / "main.c", "int twice(int);\nint main(void) { return twice(3); }\n");
  writeText(t.path / "tool.c", "int twice(int);\nint main(int c, char **v) { return twice(5); }\n");
  writeText(t.path / "tests" / "t1.c", "int main(void) { return 1; }\n");
  std::string d = t.path.string();
  // As bear records a Makefile: the library object, then two programs linked from it
  // (bear adds -c and keeps -o prog and -l flags), plus a CMake-style test object.
  std::string db =
      "[{\"directory\": \"" + d + "\", \"file\": \"lib.c\", \"arguments\": [\"cc\", \"-c\", "
      "\"-o\", \"lib.o\", \"lib.c\"]},"
      "{\"directory\": \"" + d + "\", \"file\": \"main.c\", \"arguments\": [\"cc\", \"-c\", "
      "\"lib.o\", \"-o\", \"build/prog\", \"main.c\", \"-lm\"]},"
      "{\"directory\": \"" + d + "\", \"file\": \"tool.c\", \"arguments\": [\"cc\", \"-c\", "
      "\"-o\", \"build/prog-tool\", \"tool.c\"]},"
      "{\"directory\": \"" + d + "\", \"file\": \"tests/t1.c\", \"command\": \"cc -c -o "
      "CMakeFiles/t1.dir/tests/t1.c.o tests/t1.c\"},"
      "{\"directory\": \"" + d + "\", \"file\": \"lib.c\", \"command\": \"cc -O2 -c lib.c\"}]";
  writeText(t.path / "compile_commands.json", db);
  RecipeRequest req;
  req.projectDir = t.path;
  std::string message = badInputError([&] { resolveRecipe(req); });
  CHECK(message.find("builds 3 programs") != std::string::npos);
  CHECK(message.find("prog (main.c)") != std::string::npos);
  CHECK(message.find("prog-tool (tool.c)") != std::string::npos);
  CHECK(message.find("t1 (t1.c)") != std::string::npos);
  CHECK(message.find("--target") != std::string::npos);

  req.target = "prog-tool";
  auto recipe = resolveRecipe(req);
  REQUIRE(recipe.units.size() == 2); // lib.c once, tool.c
  CHECK(recipe.units[0].source == t.path / "lib.c");
  CHECK(recipe.units[1].source == t.path / "tool.c");
  auto mod = buildModule(recipe);
  auto exe = linkExecutable(mod.bitcode, mod.key, "native", {}, recipe.libs);
  ProcessSpec spec;
  spec.argv = {exe.path.string()};
  CHECK(runProcess(spec).exitCode == 10);

  req.target = "prog"; // by the executable's name; its -l flags come along
  recipe = resolveRecipe(req);
  CHECK(recipe.units.back().source == t.path / "main.c");
  CHECK(recipe.libs == std::vector<std::string>{"m"});
  req.target = "t1"; // a CMake target, by its object directory
  CHECK(resolveRecipe(req).units.back().source == t.path / "tests" / "t1.c");
  req.target = "nope";
  CHECK(badInputError([&] { resolveRecipe(req); }).find("no entry") != std::string::npos);
}

TEST_CASE("a recipe file (--recipe) gives a tree without a project file the recipe recorded elsewhere",
          "[build][recipe]") {
  TempDir t;
  fs::path work = t.path / "work", old = t.path / "old";
  writeText(work / "src" / "main.c", "#include \"v.h\"\nint main(void) { return V; }\n");
  writeText(work / "inc" / "v.h", "#define V 7\n");
  writeText(old / "src" / "main.c", "#include \"v.h\"\nint main(void) { return V + 1; }\n");
  writeText(old / "inc" / "v.h", "#define V 3\n");
  writeText(work / "compile_commands.json",
            "[{\"directory\": \"" + work.string() +
                "\", \"file\": \"src/main.c\", \"command\": \"cc -Iinc -c src/main.c\"}]");
  RecipeRequest req;
  req.recipeFile = work / "compile_commands.json";
  req.recipeBase = work;
  BuildRecipe r = resolveRecipeIn(req, old); // the old tree has no recipe of its own
  REQUIRE(r.units.size() == 1);
  CHECK(r.units[0].source == old / "src" / "main.c");
  auto mod = buildModule(r);
  auto exe = linkExecutable(mod.bitcode, mod.key, "native", {}, r.libs);
  ProcessSpec spec;
  spec.argv = {exe.path.string()};
  CHECK(runProcess(spec).exitCode == 4); // the old tree's sources and header

  writeText(t.path / "recipe.json", R"({"sources": ["src/main.c"], "cflags": "-Iinc"})");
  req.recipeFile = t.path / "recipe.json";
  r = resolveRecipeIn(req, old);
  CHECK(r.units[0].source == old / "src" / "main.c");
  // A tree with a project file of its own uses it.
  writeText(old / "rootline.json", R"({"sources": ["src/main.c"], "cflags": ["-Iinc", "-DX"]})");
  r = resolveRecipeIn(req, old);
  CHECK(r.origin == (old / "rootline.json").string());
}

TEST_CASE("a dependency file's inputs: continuations, escaped spaces, relative paths",
          "[build][direct]") {
  std::string d = "main.o: main.c /usr/include/stdio.h \\\n  inc/a\\ b.h ../c.h\n";
  std::vector<std::string> in = rootline::depfileInputs(d, "/work/p");
  REQUIRE(in.size() == 4);
  CHECK(in[0] == "/work/p/main.c");
  CHECK(in[1] == "/usr/include/stdio.h");
  CHECK(in[2] == "/work/p/inc/a b.h");
  CHECK(in[3] == "/work/c.h");
}

TEST_CASE("a warm cache finds a unit's key without preprocessing, and a header edit is seen",
          "[build][direct]") {
  rootline::test::TempDir t;
  rootline::test::writeText(t.path / "v.h", "#define V 1\n");
  BuildRecipe r = rootline::test::sourceRecipe(
      t.path / "main.c", "#include <stdio.h>\n#include \"v.h\"\nint main(void) { printf(\"%d\\n\", V); return 0; }\n");
  BuiltModule first = buildModule(r);
  BuiltModule again = buildModule(r);
  CHECK(again.key == first.key);
  CHECK(again.cacheHit);
  // Recorded inputs: the source and both headers.
  bool recorded = false;
  for (const auto &e : fs::directory_iterator(rootline::cacheRoot() / "build" / "direct")) {
    std::string text = rootline::readFile(e.path());
    if (text.find((t.path / "v.h").string()) != std::string::npos &&
        text.find("stdio.h") != std::string::npos)
      recorded = true;
  }
  CHECK(recorded);
  // The header changes (another size): the key changes with it.
  rootline::test::writeText(t.path / "v.h", "#define V 12\n");
  BuiltModule edited = buildModule(r);
  CHECK(edited.key != first.key);
  CHECK_FALSE(edited.cacheHit);
}

TEST_CASE("a cache entry needed by several builders at once is built once", "[build]") {
  TempDir t;
  fs::path entry = t.path / "cache" / "exe" / "k" / "program";
  std::atomic<int> builds{0}, fromCache{0};
  std::vector<std::thread> builders;
  for (int i = 0; i < 4; ++i)
    builders.emplace_back([&] {
      bool hit = buildcache::buildOnce(entry, [&] {
        ++builds;
        std::this_thread::sleep_for(std::chrono::milliseconds(200)); // a slow build
        writeFileAtomic(entry, "built");
      });
      fromCache += hit;
    });
  for (auto &b : builders)
    b.join();
  CHECK(builds == 1);
  CHECK(fromCache == 3);
  CHECK(readFile(entry) == "built");
  // A builder that fails leaves no entry: the next one builds it.
  fs::path other = t.path / "cache" / "tu" / "x.bc";
  CHECK_THROWS(buildcache::buildOnce(other, [] { throw Error("cannot compile"); }));
  CHECK(!buildcache::buildOnce(other, [&] { writeFileAtomic(other, "ok"); }));
  CHECK(buildcache::buildOnce(other, [] { FAIL("built twice"); }));
}
