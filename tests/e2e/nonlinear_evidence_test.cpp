// Evidence over products and remainders of unknowns (docs/symbolic.md, "Nonlinear
// arithmetic"): Z3 takes seconds over a 64-bit `a * b % m` and overruns its timeouts, so
// such queries are first tried by evaluation. The report's claims about the inputs it
// found are checked here by running both versions, built apart from rootline.
#include "rootline/build.h"
#include "rootline/process.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace rootline;
using namespace rootline::test;

namespace {

// Modular inverses by Fermat's little theorem; the change squares the base by the
// running result instead of itself.
const char *kInverseOld = R"(#include <stdio.h>

/* Modular inverses by Fermat's little theorem, for lines "a p" with p prime. */
static long long mul_mod(long long a, long long b, long long m) { return a * b % m; }

static long long power(long long base, long long e, long long m) {
  long long r = 1;
  base %= m;
  while (e > 0) {
    if (e & 1)
      r = mul_mod(r, base, m);
    base = mul_mod(base, base, m);
    e >>= 1;
  }
  return r;
}

int main(void) {
  long long a, p;
  while (scanf("%lld %lld", &a, &p) == 2) {
    if (p < 2) {
      printf("bad modulus %lld\n", p);
      continue;
    }
    long long inv = power(a, p - 2, p);
    printf("1/%lld mod %lld = %lld (check %lld)\n", a, p, inv, mul_mod(a, inv, p));
  }
  return 0;
}
)";

ProcessResult runBuilt(const fs::path &exe, const std::string &stdinText, const fs::path &in) {
  writeText(in, stdinText);
  ProcessSpec run;
  run.argv = {exe.string()};
  run.stdinFile = in.string();
  run.timeoutSeconds = 30;
  return runProcess(run);
}

fs::path built(const fs::path &source, const fs::path &exe) {
  ProcessSpec cc;
  cc.argv = {clangPath(), "-O0", "-w", source.string(), "-o", exe.string()};
  ProcessResult b = runProcess(cc);
  INFO(b.err);
  REQUIRE(b.exitedWith(0));
  return exe;
}

} // namespace

TEST_CASE("a changed product of unknowns gets value evidence and a local alternative whose "
          "claims hold when both versions run",
          "[debug][evidence][integer]") {
  std::string newSrc = kInverseOld;
  const std::string from = "base = mul_mod(base, base, m);";
  newSrc.replace(newSrc.find(from), from.size(), "base = mul_mod(base, r, m);");
  TempDir t;
  writeText(t.path / "old" / "main.c", kInverseOld);
  writeText(t.path / "new" / "main.c", newSrc);
  writeText(t.path / "in.txt", "3 11\n");
  ProcessResult r =
      runRootline({"--json", "debug", "--old", (t.path / "old" / "main.c").string(), "--new",
                   (t.path / "new" / "main.c").string(), "--stdin", (t.path / "in.txt").string()});
  INFO(r.err);
  REQUIRE(r.exitedWith(0));
  nlohmann::json rep = nlohmann::json::parse(r.out);
  const nlohmann::json &top = rep["candidates"].at(0);
  INFO(top.dump());
  CHECK(top["line"] == 12);
  fs::path oldExe = built(t.path / "old" / "main.c", t.path / "o");
  fs::path newExe = built(t.path / "new" / "main.c", t.path / "n");

  // Value evidence: before, each of its queries took Z3 past its second and found
  // nothing ("0 value-evidence input(s)"). Now both kinds, and what they claim holds.
  REQUIRE(top.contains("value_evidence"));
  bool same = false, different = false;
  int k = 0;
  for (const auto &e : top["value_evidence"]) {
    INFO(e.dump());
    std::string input = e["input"]["stdin"];
    ProcessResult o = runBuilt(oldExe, input, t.path / ("v" + std::to_string(k) + ".in"));
    ProcessResult n = runBuilt(newExe, input, t.path / ("w" + std::to_string(k++) + ".in"));
    CHECK(o.out == e["runs"]["old"]["stdout"].get<std::string>());
    CHECK(n.out == e["runs"]["new"]["stdout"].get<std::string>());
    CHECK((o.out == n.out) == e["runs"]["outputs_agree"].get<bool>());
    CHECK(e["changes"].size() == 1); // one token moved
    (e["same_value"].get<bool>() ? same : different) = true;
  }
  CHECK(same);
  CHECK(different);

  // Local Darwin at power(): before, "0 alternative(s) ran on both versions".
  REQUIRE(rep["local_darwin"].is_object());
  const nlohmann::json &ld = rep["local_darwin"];
  INFO(ld.dump());
  CHECK(ld["function"] == "power");
  CHECK_FALSE(ld["alternatives"].empty());
  std::vector<std::string> runnable = top["runnable_evidence"];
  CHECK(std::find(runnable.begin(), runnable.end(), "local alternative") != runnable.end());
}
