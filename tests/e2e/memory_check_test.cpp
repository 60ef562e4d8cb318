// The replay-time memory checker (include/rootline/memory_check.h): silent on correct
// programs, and on each kind of error it names the access and the object.
#include "rootline/memory_check.h"
#include "rootline/run.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;

namespace {

// A finding as plain data (the module its instructions point into is gone after the run).
struct Found {
  std::string kind;
  unsigned line = 0;
  bool hasObject = false;
  uint64_t accessSize = 0;
  bool freed = false;
  std::string where() const { return kind + " at line " + std::to_string(line); }
};

std::vector<Found> findingsOf(const BuildRecipe &recipe, const ProgramFixture &f) {
  TracedProgram p = buildTraced(recipe);
  TempDir t;
  TestCase test;
  test.stdinFile = f.stdinFile;
  test.args = f.args;
  test.timeoutSeconds = 60;
  TracedRun run = runTraced(p, test, t.path / "run.trace");
  LoadedModule m = loadModule(p.module.bitcode);
  ModuleIndex index(*m.module);
  TraceReader reader(run.trace, p.module.key);
  MemoryChecker checker;
  replayTrace(*m.module, index, reader, &checker);
  std::vector<Found> out;
  for (const auto &x : checker.take())
    out.push_back({x.kind, ModuleIndex::locationOf(x.access).line, x.object != nullptr,
                   x.accessSize, x.freeInstance != kNoDef});
  return out;
}

} // namespace

TEST_CASE("the memory checker finds nothing in programs without memory errors",
          "[memcheck][fixtures]") {
  std::vector<ProgramFixture> plain;
  for (const auto &f : programFixtures())
    if (!f.hasTag("cpu-heavy") && !f.hasTag("stress") && !f.hasTag("crash"))
      plain.push_back(f);
  for (const auto &f : sampledUnderSanitizers(plain, 3)) {
    DYNAMIC_SECTION(f.name) {
      auto found = findingsOf(f.recipe(), f);
      INFO((found.empty() ? "" : found.front().where()));
      CHECK(found.empty());
    }
  }
  // Nor in the old (correct) version of any memory-error regression.
  for (const auto &r : regressionFixturesIn("diagnoses")) {
    if (r.meta.value("failure_kind", "") != "memory_error")
      continue;
    DYNAMIC_SECTION("old " << r.name) {
      auto found = findingsOf(r.program.recipeIn(r.dir / "old"), r.program);
      INFO((found.empty() ? "" : found.front().where()));
      CHECK(found.empty());
    }
  }
}

TEST_CASE("the memory checker names the access and the object of each kind of error",
          "[memcheck][diagnoses]") {
  for (const auto &r : regressionFixturesIn("diagnoses")) {
    if (r.meta.value("failure_kind", "") != "memory_error")
      continue;
    DYNAMIC_SECTION(r.name) {
      auto found = findingsOf(r.program.recipeIn(r.dir / "new"), r.program);
      const auto &m = r.meta["memory_error"];
      std::string kind = m["kind"].get<std::string>();
      if (kind == "uninitialized")
        kind = "uninitialized-read";
      REQUIRE_FALSE(found.empty());
      INFO(found.front().where());
      CHECK(found.front().kind == kind);
      CHECK(found.front().hasObject);
      if (kind != "uninitialized-read") {
        CHECK(found.front().line == static_cast<unsigned>(m["access_line"].get<int>()));
        CHECK(found.front().accessSize > 0);
      }
      if (kind == "heap-use-after-free")
        CHECK(found.front().freed);
    }
  }
}
