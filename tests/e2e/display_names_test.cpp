// Conditions a person can read (docs/symbolic.md, "Input variables" and "Display"):
// inputs by the variables the program reads them into, arithmetic and characters as C
// writes them, in every command's output.
#include "test_support.h"

#include "rootline/fs.h"

#include <catch2/catch.hpp>

#include <set>

using namespace rootline;
using namespace rootline::test;
using nlohmann::json;

TEST_CASE("example 1's signature reads in the program's names", "[display][explore]") {
  ProgramFixture f = programFixture("paper_fig1");
  TempDir t;
  ProcessResult r = runRootline({"explore", "--src", (f.dir / "main.c").string(), "--stdin",
                                 f.stdinFile->string(), "--out", (t.path / "out").string(),
                                 "--strategy", "rsc", "--signature", "--criterion", "output:2"});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  CHECK(r.out.find("partition: x <= y && x + y > 0\n  output: y") != std::string::npos);
  CHECK(r.out.find("partition: x > y && x + y > 0\n  output: x") != std::string::npos);
  CHECK(r.out.find("partition: x + y <= 0") != std::string::npos);
  CHECK(r.out.find("tok@") == std::string::npos);
  // The generated tests' sidecars read the same way; the solver's names stay in SMT-LIB.
  std::set<std::string> conditions, outputs;
  for (const auto &e : fs::directory_iterator(t.path / "out"))
    if (fs::exists(e.path() / "test.json")) {
      json j = json::parse(readFile(e.path() / "test.json"));
      conditions.insert(j["relevant_slice_condition"].get<std::string>());
      for (const auto &o : j["symbolic_outputs"])
        outputs.insert(o["value"].get<std::string>());
      CHECK(j["path_condition_smt2"].get<std::string>().find("tok@") != std::string::npos);
    }
  CHECK(conditions.count("x <= y && x + y > 0"));
  CHECK(conditions.count("x > y && x + y > 0"));
  CHECK(outputs.count("x"));
  CHECK(outputs.count("y"));
}

TEST_CASE("the issue's program: differences, products and whole printed values",
          "[display][explore]") {
  TempDir t;
  BuildRecipe recipe = sourceRecipe(t.path / "m.c", R"(#include <stdio.h>
int main(void) {
  int p, q, r, m, res = 0;
  scanf("%d %d %d", &p, &q, &r);
  if (p < q) m = q - p; else m = p * 2;
  if (p - q > 3) res = m + 1;
  printf("%d\n", res);
  return 0;
}
)");
  writeText(t.path / "in.txt", "10 2 0\n");
  ProcessResult r = runRootline({"explore", "--src", (t.path / "m.c").string(), "--stdin",
                                 (t.path / "in.txt").string(), "--out", (t.path / "out").string(),
                                 "--strategy", "rsc", "--signature"});
  INFO(r.out);
  REQUIRE(r.exitedWith(0));
  CHECK(r.out.find("partition: q <= p && p - q > 3\n  output: 2 * p + 1") != std::string::npos);
  CHECK(r.out.find("partition: q > p && p - q > 3\n  output: q - p + 1") != std::string::npos);
  CHECK(r.out.find("concat") == std::string::npos);
}

TEST_CASE("array elements, repeated reads, struct members and characters keep their names",
          "[display][slice]") {
  TempDir t;
  sourceRecipe(t.path / "m.c", R"(#include <stdio.h>
struct item { int qty; int price; };
int main(void) {
  int a[4], n, x, sum = 0;
  struct item it;
  char line[16];
  scanf("%d", &n);
  for (int i = 0; i < n && i < 4; i++) scanf("%d", &a[i]);
  scanf("%d", &x); scanf("%d", &x);
  scanf("%d %d", &it.qty, &it.price);
  scanf("%15s", line);
  for (int i = 0; i < n && i < 4; i++) if (a[i] > x) sum += a[i];
  if (it.qty * it.price > 100) sum++;
  if (line[0] == 'y') sum += 2;
  printf("%d\n", sum);
  return 0;
}
)");
  writeText(t.path / "in.txt", "3 5 9 1 4 6 7 20 yes\n");
  ProcessResult r = runRootline({"--json", "slice", "--src", (t.path / "m.c").string(), "--stdin",
                                 (t.path / "in.txt").string(), "--criterion", "output"});
  REQUIRE(r.exitedWith(0));
  json j = json::parse(r.out);
  std::string rsc = j["rsc"];
  INFO(rsc);
  // a[i] in a loop: a[0], a[1], a[2]; x read twice: its second value is x#2.
  CHECK(rsc.find("a[0] <= x#2") != std::string::npos);
  CHECK(rsc.find("a[1] > x#2") != std::string::npos);
  CHECK(rsc.find("a[2] <= x#2") != std::string::npos);
  CHECK(rsc.find("it.qty * it.price > 100") != std::string::npos);
  CHECK(rsc.find("line[0] == 'y'") != std::string::npos);
  // `n > 0` is asked twice on the path: shown once.
  CHECK(rsc.find("n > 0") == rsc.rfind("n > 0"));
  // The solver's names beside them.
  CHECK(j["rsc_smt"].get<std::string>().find("tok@") != std::string::npos);
}

TEST_CASE("numbers parsed from arguments are named by the argument, constants on the right",
          "[display][explore]") {
  TempDir t;
  sourceRecipe(t.path / "m.c", R"(#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  if (argc < 3) return 2;
  int n = atoi(argv[1]);
  long m = strtol(argv[2], NULL, 10);
  unsigned u = (unsigned)n;
  if (n > 10 && m < 5)
    printf("big %d\n", n - (int)m);
  else if (u < 3)
    printf("tiny\n");
  else
    printf("small\n");
  return 0;
}
)");
  ProcessResult r =
      runRootline({"explore", "--src", (t.path / "m.c").string(), "--out",
                   (t.path / "out").string(), "--strategy", "rsc", "--signature", "--", "3", "9"});
  INFO(r.out << r.err);
  REQUIRE(r.exitedWith(0));
  // atoi/strtol over argv: one variable per argument, not its bytes.
  CHECK(r.out.find("argv[1] > 10 && argv[2] < 5") != std::string::npos);
  CHECK(r.out.find("output: \"big \" argv[1] - (int)argv[2]") != std::string::npos);
  // An unsigned comparison of a value that may be negative, as C writes it.
  CHECK(r.out.find("(unsigned)argv[1] < 3") != std::string::npos);
  CHECK(r.out.find("argv[1][") == std::string::npos);
  CHECK(r.out.find("<u") == std::string::npos);
  // A test the exploration wrote puts the solver's number back as the argument's text.
  bool rewritten = false;
  for (const auto &e : fs::directory_iterator(t.path / "out"))
    if (fs::exists(e.path() / "test.json")) {
      json j = json::parse(readFile(e.path() / "test.json"));
      auto args = j["args"];
      if (args.size() == 2 && std::atoi(args[0].get<std::string>().c_str()) > 10 &&
          std::atol(args[1].get<std::string>().c_str()) < 5)
        rewritten = true;
    }
  CHECK(rewritten);
}

TEST_CASE("debug shows a candidate's condition by the program's names, the solver's beside it",
          "[display][debug]") {
  RegressionFixture r = regressionFixture("discount_threshold");
  ProcessResult res = runRootline({"--json", "debug", "--old", (r.dir / "old").string(), "--new",
                                   (r.dir / "new").string(), "--src", "main.c", "--stdin",
                                   r.program.stdinFile->string()});
  REQUIRE(res.exitedWith(0));
  json c = json::parse(res.out)["candidates"][0];
  CHECK(c["condition"] == "qty <= 10");
  CHECK(c["condition_smt"] == "tok@0:i32 <= 10");
}

TEST_CASE("DESIGN examples 3 and 5 read in the program's names too", "[display][debug]") {
  // Example 3: the old version's cap is missing code; its condition is over `qty`.
  DebugReport cap = debugRegression(debugRequest(regressionFixture("missing_cap")));
  REQUIRE_FALSE(cap.candidates.empty());
  CHECK(cap.candidates[0].condition == "qty > 100");
  // Example 5: a symbolic array index; every partition over x and y.
  ProgramFixture f = programFixture("symbolic_index");
  TempDir t;
  ProcessResult r = runRootline({"explore", "--src", (f.dir / "main.c").string(), "--stdin",
                                 f.stdinFile->string(), "--out", (t.path / "out").string(),
                                 "--strategy", "rsc", "--signature"});
  REQUIRE(r.exitedWith(0));
  CHECK(r.out.find("partition: x > 0 && ") != std::string::npos);
  CHECK(r.out.find("&& y > 0\n") != std::string::npos);
  CHECK(r.out.find("tok@") == std::string::npos);
}
