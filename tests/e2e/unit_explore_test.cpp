// Unit-level exploration (docs/explore.md, "Unit mode"): explore --function on C
// functions with pointer, tagged-union and function-pointer arguments, and the cmocka
// tests it writes, built with CMake against the fixture's source and run.
#include "test_support.h"

#include "rootline/fs.h"
#include "rootline/process.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

using namespace rootline;
using namespace rootline::test;
using nlohmann::json;

namespace {

ProcessResult runIn(const std::vector<std::string> &argv, const fs::path &dir,
                    double timeout = 300) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.workDir = dir.string();
  spec.timeoutSeconds = timeout;
  return runProcess(spec);
}

struct Explored {
  ProcessResult process;
  json summary, cases;
  fs::path out;
};

Explored exploreFunction(const TempDir &t, const std::string &file, const std::string &function,
                         const std::vector<std::string> &extra = {}) {
  Explored e;
  e.out = t.path / function;
  std::vector<std::string> args = {
      "explore",      "--src",      (fixturesDir() / "unit" / file).string(),
      "--function",   function,     "--out",
      e.out.string(), "--max-runs", "80",
      "--budget",     "20"};
  args.insert(args.end(), extra.begin(), extra.end());
  e.process = runRootline(args);
  if (fs::exists(e.out / "summary.json"))
    e.summary = json::parse(readFile(e.out / "summary.json"));
  if (fs::exists(e.out / "unit" / "cases.json"))
    e.cases = json::parse(readFile(e.out / "unit" / "cases.json"));
  return e;
}

// Builds the generated unit tests with CMake and runs one of their executables.
ProcessResult buildAndRun(const Explored &e, const std::string &exe) {
  fs::path unit = e.out / "unit", build = unit / "build";
  ProcessResult conf = runIn({ROOTLINE_CMAKE, "-S", unit.string(), "-B", build.string()}, unit);
  INFO(conf.out << conf.err);
  REQUIRE(conf.exitedWith(0));
  ProcessResult made = runIn({ROOTLINE_CMAKE, "--build", build.string()}, unit);
  INFO(made.out << made.err);
  REQUIRE(made.exitedWith(0));
  return runIn({(build / exe).string()}, unit, 60);
}

bool anyStdout(const json &cases, const std::string &needle) {
  for (const auto &c : cases["cases"])
    if (c["expected_stdout"].get<std::string>().find(needle) != std::string::npos)
      return true;
  return false;
}

// Every branch direction of `function` was taken (summary.json, "functions").
void checkAllBranches(const json &summary, const std::string &function) {
  const json &cov = summary["functions"][function]["branches"];
  INFO(function << " branches: " << cov.dump());
  CHECK(cov["covered"] == cov["total"]);
}

// The generated unit tests `exe` build and pass.
void checkTestsPass(const Explored &e, const std::string &exe) {
  ProcessResult tests = buildAndRun(e, exe);
  INFO(tests.out << tests.err);
  CHECK(tests.exitedWith(0));
}

// Builds and runs a generated crash test, which must name the fault `where`.
ProcessResult checkCrashNamed(const Explored &e, const std::string &exe, const std::string &where) {
  ProcessResult crash = buildAndRun(e, exe);
  INFO(crash.out << crash.err);
  CHECK((crash.out + crash.err).find(where) != std::string::npos);
  return crash;
}

// Every "what = target" the cases record (function pointers, void * payload types).
std::set<std::string> targetsOf(const json &cases) {
  std::set<std::string> targets;
  for (const auto &c : cases["cases"])
    for (const auto &target : c["targets"])
      targets.insert(target.get<std::string>());
  return targets;
}

} // namespace

TEST_CASE("unit mode: a list function is explored through lazily built lists, and its cmocka "
          "tests pass",
          "[explore][unit]") {
  TempDir t;
  Explored e = exploreFunction(t, "list_sum.c", "list_sum");
  INFO(e.process.out << e.process.err);
  REQUIRE(e.process.exitedWith(0));
  // Every branch of the function, by lists the driver built: none, one, two nodes, and a
  // node aliasing an earlier one (a cycle, walked until `limit`).
  checkAllBranches(e.summary, "list_sum");
  CHECK(e.summary["functions"].size() == 1); // not the driver's functions
  CHECK(anyStdout(e.cases, "node_object[0].next = NULL"));
  CHECK(anyStdout(e.cases, "node_object[0].next = &node_object[1]"));
  CHECK(anyStdout(e.cases, "node_object[0].next = &node_object[0]"));
  CHECK(e.process.err.find("coverage of list_sum: branches") != std::string::npos);
  CHECK_FALSE(fs::exists(e.out / "unit" / "crash_list_sum.c"));
  ProcessResult tests = buildAndRun(e, "test_list_sum");
  INFO(tests.out << tests.err);
  CHECK(tests.exitedWith(0));
  size_t unitTests = 0;
  for (const auto &c : e.cases["cases"])
    unitTests += c["unit_test"].is_string();
  CHECK(unitTests > 10);
  CHECK((tests.out + tests.err).find("[  PASSED  ] " + std::to_string(unitTests) + " test(s)") !=
        std::string::npos);
}

TEST_CASE("unit mode: a NULL argument the function dereferences is a crash test that fails "
          "naming the crash",
          "[explore][unit]") {
  TempDir t;
  Explored e = exploreFunction(t, "list_sum.c", "first_value");
  INFO(e.process.out << e.process.err);
  REQUIRE(e.process.exitedWith(1)); // bugs found
  CHECK(e.process.err.find("null-deref") != std::string::npos);
  REQUIRE(fs::exists(e.out / "unit" / "crash_first_value.c"));
  ProcessResult passing = buildAndRun(e, "test_first_value");
  INFO(passing.out << passing.err);
  CHECK(passing.exitedWith(0));
  ProcessResult crash =
      checkCrashNamed(e, "crash_first_value", "null-deref at list_sum.c:19 in first_value");
  CHECK_FALSE(crash.exitedWith(0));
}

TEST_CASE("unit mode: a tagged union is built per tag value, and every case is reached",
          "[explore][unit]") {
  TempDir t;
  Explored e = exploreFunction(t, "expr_eval.c", "eval");
  INFO(e.process.out << e.process.err);
  checkAllBranches(e.summary, "eval");
  // NUM reads the number, NEG builds `neg`, ADD and MUL build `bin`'s operands.
  CHECK(anyStdout(e.cases, "expr_object[0].kind = 0\nexpr_object[0].u.num = "));
  CHECK(anyStdout(e.cases, "expr_object[0].kind = 1\nexpr_object[0].u.neg = "));
  CHECK(anyStdout(e.cases, "expr_object[0].kind = 2\nexpr_object[0].u.bin.l = "));
  CHECK(anyStdout(e.cases, "expr_object[0].kind = 3\nexpr_object[0].u.bin.l = "));
  checkTestsPass(e, "test_eval");
}

TEST_CASE("unit mode: a function pointer is a symbolic choice among the file's functions of its "
          "type, recorded in each test",
          "[explore][unit]") {
  TempDir t;
  Explored e = exploreFunction(t, "dispatch.c", "run_op");
  INFO(e.process.out << e.process.err);
  std::set<std::string> targets = targetsOf(e.cases);
  CHECK(targets.count("op.apply = add"));
  CHECK(targets.count("op.apply = sub"));
  CHECK(targets.count("op.apply = divide"));
  // The solver picked divide with b = 0: a crash, found and named.
  CHECK(e.process.err.find("div-by-zero at") != std::string::npos);
  // The functions it may call through the pointer are covered too.
  CHECK(e.summary["functions"].contains("divide"));
  checkAllBranches(e.summary, "run_op");
  checkTestsPass(e, "test_run_op");
  checkCrashNamed(e, "crash_run_op", "div-by-zero at dispatch.c:11 in divide");
}

TEST_CASE("unit mode: strings and arrays behind pointers get symbolic lengths within their "
          "bounds, and globals are symbolic",
          "[explore][unit]") {
  TempDir t;
  Explored parse = exploreFunction(t, "buf_parse.c", "parse_number", {"--max-string", "3"});
  INFO(parse.process.out << parse.process.err);
  // The NULL string and strings up to the bound. (Lengths the function does not tell
  // apart are not enumerated: the NUL's position is symbolic, see keyword.c below.)
  CHECK(anyStdout(parse.cases, "buf_object[0].data = NULL"));
  bool longest = false;
  for (const auto &c : parse.cases["cases"]) {
    std::string out = c["expected_stdout"];
    size_t at = out.find("string_text[0] = \"");
    if (at != std::string::npos && out.find('"', at + 18) == at + 18 + 3)
      longest = true;
  }
  CHECK(longest);
  CHECK(anyStdout(parse.cases, "return = -1"));  // no digits
  CHECK(anyStdout(parse.cases, "return = 0\n")); // no digits, ALLOW_EMPTY
  ProcessResult tests = buildAndRun(parse, "test_parse_number");
  INFO(tests.out << tests.err);
  CHECK(tests.exitedWith(0));

  Explored stack = exploreFunction(t, "stack.c", "stack_push");
  INFO(stack.process.out << stack.process.err);
  checkAllBranches(stack.summary, "stack_push");
  // `pushes` is a global of the file: the third push onwards returns 2.
  CHECK(anyStdout(stack.cases, "return = 2"));
  CHECK(anyStdout(stack.cases, "pushes = "));
  ProcessResult tests2 = buildAndRun(stack, "test_stack_push");
  INFO(tests2.out << tests2.err);
  CHECK(tests2.exitedWith(0));
}

TEST_CASE("unit mode refuses what it cannot explore, in one line", "[explore][unit]") {
  TempDir t;
  auto src = (fixturesDir() / "unit" / "list_sum.c").string();
  ProcessResult none = runRootline({"explore", "--src", src, "--function", "no_such_function",
                                    "--out", (t.path / "a").string()});
  CHECK(none.exitedWith(2));
  CHECK(none.err.find("no function 'no_such_function' is defined in the program") !=
        std::string::npos);
  ProcessResult main = runRootline(
      {"explore", "--src", src, "--function", "main", "--out", (t.path / "b").string()});
  CHECK(main.exitedWith(2));
  ProcessResult args = runRootline({"explore", "--src", src, "--function", "list_sum", "--out",
                                    (t.path / "c").string(), "--", "x"});
  CHECK(args.exitedWith(2));
}

TEST_CASE("unit mode: branches on strcmp, strncmp, strlen, strchr and ctype of a string "
          "argument are explored",
          "[explore][unit][libc-models]") {
  TempDir t;
  Explored e = exploreFunction(t, "keyword.c", "classify");
  INFO(e.process.out << e.process.err);
  checkAllBranches(e.summary, "classify");
  for (const char *ret : {"return = -1", "return = 0", "return = 1", "return = 2", "return = 3",
                          "return = 4", "return = 5"}) {
    INFO(ret);
    CHECK(anyStdout(e.cases, std::string(ret) + "\n"));
  }
  CHECK(e.summary["concretized_calls"].empty());
  checkTestsPass(e, "test_classify");
}

TEST_CASE("unit mode: atoi of a string argument is modelled over its digits",
          "[explore][unit][libc-models]") {
  TempDir t;
  Explored e = exploreFunction(t, "keyword.c", "parse_port");
  INFO(e.process.out << e.process.err);
  checkAllBranches(e.summary, "parse_port");
  CHECK(anyStdout(e.cases, "return = -2\n")); // four digits, above 999
  CHECK(e.summary["concretized_calls"].empty());
}

TEST_CASE("unit mode on cJSON's shapes: an anonymous struct behind a typedef is built, and a "
          "global holding a pointer keeps its initialiser, with a note",
          "[explore][unit]") {
  TempDir t;
  Explored e = exploreFunction(t, "typedef_buffer.c", "skip_spaces");
  INFO(e.process.out << e.process.err);
  CHECK(e.process.err.find("global global_hooks holds pointers: it keeps its initial value") !=
        std::string::npos);
  CHECK(e.process.err.find("global skips") == std::string::npos); // a count is symbolic
  CHECK(anyStdout(e.cases, "parse_buffer_object[0].offset = "));
  CHECK(anyStdout(e.cases, "skips = "));
  checkAllBranches(e.summary, "skip_spaces");
  checkTestsPass(e, "test_skip_spaces");
}

TEST_CASE("unit mode: float and double arguments and fields are symbolic, through arithmetic, "
          "floor and isnan",
          "[explore][unit][float]") {
  TempDir t;
  Explored e = exploreFunction(t, "weighted_grade.c", "grade");
  INFO(e.process.out << e.process.err);
  // Every return value: NULL, negative, each threshold, floor(total / 10) == 7, the rest.
  for (const char *r : {"return = -2\n", "return = -1\n", "return = 4\n", "return = 3\n",
                        "return = 2\n", "return = 0\n"}) {
    INFO(r);
    CHECK(anyStdout(e.cases, r));
  }
  const json &cov = e.summary["functions"]["grade"]["branches"];
  // isnan(total) is the one direction left: the inputs are numbers a person types.
  CHECK(cov["covered"].get<int>() + 1 >= cov["total"].get<int>());
  CHECK(e.summary["divergences"] == 0);
  CHECK(e.summary["concretized_calls"].empty());
  checkTestsPass(e, "test_grade");
}

TEST_CASE("unit mode: a void * payload is built per tag value as the type the code uses it as, "
          "and each test records the type",
          "[explore][unit][payload]") {
  TempDir t;
  Explored e = exploreFunction(t, "shape_payload.c", "shape_area");
  INFO(e.process.out << e.process.err);
  REQUIRE(e.process.exitedWith(1)); // the division by zero behind a rect payload
  std::set<std::string> targets = targetsOf(e.cases);
  // A local of that type, a parameter it is passed to, a string it is read as.
  CHECK(targets.count("shape.data = const struct circle *"));
  CHECK(targets.count("shape.data = const struct rect *"));
  CHECK(targets.count("shape.data = const char *"));
  for (const char *r : {"return = 0\n", "return = -1\n", "return = 3\n", "return = 2\n",
                        "return = 1\n", "return = -2\n"}) {
    INFO(r);
    CHECK(anyStdout(e.cases, r));
  }
  // A tag the code gives no type: NULL or an opaque block, so the default case runs.
  CHECK(anyStdout(e.cases, "shape_object[0].data = &opaque_block[0]\nshape_object[0].kind = "));
  CHECK(e.process.err.find("div-by-zero at") != std::string::npos);
  for (const char *f : {"shape_area", "aspect"})
    checkAllBranches(e.summary, f);
  CHECK(e.summary["divergences"] == 0);
  checkTestsPass(e, "test_shape_area");
  checkCrashNamed(e, "crash_shape_area", "div-by-zero at shape_payload.c:23 in aspect");
}

TEST_CASE("unit mode: a void * parameter tagged by a later parameter is built after its tag",
          "[explore][unit][payload]") {
  TempDir t;
  Explored e = exploreFunction(t, "shape_payload.c", "measure");
  INFO(e.process.out << e.process.err);
  std::string driver = readFile(e.out / "unit" / "driver.c");
  size_t tag = driver.find("RL_READ(\"%d\", (int *)&arg_kind);");
  size_t payload = driver.find("arg_payload = (void *)rl_payload;");
  REQUIRE(tag != std::string::npos);
  REQUIRE(payload != std::string::npos);
  CHECK(tag < payload);
  // A cast to a struct, and a pointer to int read as an array.
  for (const char *r : {"return = 1\n", "return = 0\n", "return = -1\n", "return = -3\n",
                        "return = 4\n", "return = 3\n"}) {
    INFO(r);
    CHECK(anyStdout(e.cases, r));
  }
  CHECK(e.process.err.find("null-deref at") != std::string::npos);
  checkAllBranches(e.summary, "measure");
  bool described = false;
  for (const auto &in : e.cases["inputs"])
    described |= in["name"] == "payload" &&
                 in["how"].get<std::string>().find("for the value of kind") != std::string::npos;
  CHECK(described);
  checkTestsPass(e, "test_measure");
}

TEST_CASE("unit mode: in a file with globals, a void * parameter's note is on its own input",
          "[explore][unit][payload]") {
  TempDir t;
  Explored e = exploreFunction(t, "event_payload.c", "on_event");
  INFO(e.process.out << e.process.err);
  REQUIRE(e.process.exitedWith(0));
  // The globals come first, then the parameters; each says how it is built.
  std::map<std::string, std::string> how;
  std::vector<std::string> names;
  for (const auto &in : e.cases["inputs"]) {
    names.push_back(in["name"]);
    how[in["name"]] = in["how"];
  }
  INFO(e.cases["inputs"].dump(2));
  CHECK(names == std::vector<std::string>{"events", "last_kind", "ctx", "kind"});
  CHECK(how["events"] == "symbolic integer (global)");
  CHECK(how["last_kind"] == "symbolic integer (global)");
  CHECK(how["ctx"] ==
        "void * built as the type the code uses it as for the value of kind (or NULL)");
  CHECK(how["kind"] == "symbolic integer");
  // The payload is built per tag value: a counter, a string, and the other kinds.
  std::set<std::string> targets = targetsOf(e.cases);
  CHECK(targets.count("ctx = struct counter *"));
  CHECK(targets.count("ctx = const char *"));
  for (const char *r : {"return = -1\n", "return = 1\n", "return = 2\n", "return = 3\n",
                        "return = 4\n", "return = 0\n"}) {
    INFO(r);
    CHECK(anyStdout(e.cases, r));
  }
  checkAllBranches(e.summary, "on_event");
  checkTestsPass(e, "test_on_event");
}

TEST_CASE("unit mode: a struct and an array met only through a fixed array of structs inside "
          "another struct get their helpers",
          "[explore][unit]") {
  TempDir t;
  Explored e = exploreFunction(t, "slot_table.c", "busiest");
  INFO(e.process.out << e.process.err);
  REQUIRE(e.process.exitedWith(0));
  // The table's helper meets `struct owner` through its slots (writeStructHelpers takes
  // it up), and the owner's helper meets the `int` array (written after the struct
  // helpers; an array's elements are scalars and need no helper): each is in the driver.
  std::string driver = readFile(e.out / "unit" / "driver.c");
  for (const char *helper : {"static struct table *rl_pointer_table(int depth) {",
                             "static struct owner *rl_pointer_owner(int depth) {",
                             "static void *rl_array_int(int depth) {"}) {
    INFO(helper);
    CHECK(driver.find(helper) != std::string::npos);
  }
  CHECK(anyStdout(e.cases, "table_object[0].slots[0].owner = &owner_object[0]"));
  // NULL, no slot with an owner, an owner at a low level, one at a high level with scores.
  for (const char *r : {"return = -1\n", "return = -2\n", "return = 0\n", "return = 1\n"}) {
    INFO(r);
    CHECK(anyStdout(e.cases, r));
  }
  checkAllBranches(e.summary, "busiest");
  checkTestsPass(e, "test_busiest");
}
