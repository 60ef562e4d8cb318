// The edit screen (src/compose/edit_screen.cpp): every operator edit of a program in one
// build, each switched on at run time, must behave as the same edit made in the source and
// compiled by clang.
#include "compose/debug_stages.h"
#include "rootline/analysed_version.h"
#include "rootline/build.h"
#include "rootline/output_values.h"
#include "rootline/process.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;

namespace {

const char *kScreened = "#include <stdio.h>\n"
                        "int main(void) {\n"
                        "  int n, i, sum = 0;\n"
                        "  unsigned u = 5;\n"
                        "  double d = 2.5;\n"
                        "  if (scanf(\"%d\", &n) != 1) return 1;\n"
                        "  for (i = 0; i < n; i++) sum += i;\n"     // 7: `<`, `++`
                        "  if (sum == 6 && n > 2) puts(\"six\");\n" // 8: `==`, `&&`, `>`
                        "  if (u >= 5) sum--;\n"                    // 9: unsigned `>=`, `--`
                        "  if (d <= 2.5) sum += 100;\n"             // 10: double `<=`
                        "  const char *p = \"abc\"; p++;\n"         // 11: a pointer's `++`
                        "  printf(\"%d %s\\n\", sum, p);\n"
                        "  return 0;\n"
                        "}\n";

// The program with `edit` made on line `line`, compiled by clang and run on "4".
std::string runEdited(const fs::path &dir, unsigned line, const debug::TokenEdit &edit) {
  fs::path src = dir / "edited.c", exe = dir / "edited";
  writeText(src, debug::withTokenEdit(kScreened, line, edit));
  ProcessSpec cc;
  cc.argv = {clangPath(), "-O0", "-w", src.string(), "-o", exe.string()};
  REQUIRE(runProcess(cc).exitedWith(0));
  writeText(dir / "in", "4\n");
  ProcessSpec run;
  run.argv = {exe.string()};
  run.stdinFile = (dir / "in").string();
  return runProcess(run).out;
}

} // namespace

TEST_CASE("each operator edit the screen holds behaves as the same edit compiled from the source, "
          "and edits it cannot hold are left out",
          "[debug][edits]") {
  TempDir t;
  debug::Version v;
  v.name = "new";
  v.root = t.path / "new";
  buildAnalysedVersion(v, sourceRecipe(v.root / "main.c", kScreened));
  std::vector<std::string> lines = outputLines(kScreened);
  std::vector<debug::ScreenedEdit> edits;
  for (unsigned line = 7; line <= 11; ++line)
    for (const debug::TokenEdit &e : debug::tokenEditsOf(lines[line - 1]))
      edits.push_back({"main.c", line, e});
  std::string original = runEdited(t.path, 1, {}); // no edit: line 1 holds no token ""
  REQUIRE(original == "six\n105 bc\n");
  ProgramInput input;
  input.stdinBytes = "4\n";
  // "Passes" here: the output changed; the unedited program "fails as before".
  auto changed = [&](const RunSummary &r) { return r.stdoutBytes != original; };
  auto same = [&](const RunSummary &r) { return r.stdoutBytes == original; };
  DebugReport report;
  debug::Stages stages(report, nullptr);
  std::map<size_t, bool> verdicts = debug::screenEdits(
      v, edits, changed, same, input, 10, t.path / "screen", Deadline::in(120), stages);
  unsigned passing = 0, failing = 0;
  std::set<std::string> held;
  for (size_t k = 0; k < edits.size(); ++k) {
    const debug::ScreenedEdit &e = edits[k];
    std::string name = std::to_string(e.line) + ": " + e.edit.from + " -> " + e.edit.to;
    auto it = verdicts.find(k);
    if (it == verdicts.end()) {
      // `&&`/`||` compile to branches and literals are not operators: their trials decide.
      CHECK((e.edit.literal || e.edit.from == "&&" || e.edit.from == "||"));
      continue;
    }
    held.insert(name);
    INFO(name);
    CHECK(it->second == (runEdited(t.path, e.line, e.edit) != original));
    (it->second ? passing : failing)++;
  }
  CHECK(held.count("7: < -> <="));
  CHECK(held.count("7: ++ -> --"));
  CHECK(held.count("8: == -> !="));
  CHECK(held.count("8: > -> >="));
  CHECK(held.count("9: >= -> >"));
  CHECK(held.count("9: -- -> ++"));
  CHECK(held.count("10: <= -> <"));
  CHECK(held.count("11: ++ -> --"));
  CHECK(passing > 0);
  CHECK(failing > 0);
  // A program that does not fail as the new version did screens nothing.
  CHECK(debug::screenEdits(v, edits, changed, changed, input, 10, t.path / "screen2",
                           Deadline::in(120), stages)
            .empty());
}
