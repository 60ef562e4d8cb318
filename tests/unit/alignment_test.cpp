// Execution alignment on real runs of two versions compiled by clang: loop iterations
// and calls meet their counterparts, lines map through the diff, values are compared.
#include "rootline/alignment.h"
#include "rootline/build.h"
#include "rootline/run.h"
#include "rootline/text_diff.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace rootline;
using namespace rootline::test;

namespace {

// One version: built, run traced on `stdinText`, replayed with a recorder whose lines
// are named by `lineOf` (a function of the source line).
struct AlignedRun {
  LoadedModule module;
  std::unique_ptr<ModuleIndex> index;
  ExecutionLog log;
};

AlignedRun record(const fs::path &dir, const std::string &source,
                  const std::function<unsigned(unsigned)> &lineOf,
                  const std::string &stdinText = "") {
  AlignedRun r;
  BuildRecipe recipe = sourceRecipe(dir / "main.c", source);
  TracedProgram p = buildTraced(recipe);
  writeText(dir / "stdin", stdinText);
  TestCase test;
  test.stdinFile = dir / "stdin";
  TracedRun run = runTraced(p, test, dir / "run.trace");
  r.module = loadModule(p.module.bitcode);
  r.index = std::make_unique<ModuleIndex>(*r.module.module);
  LineExecutionRecorder recorder(
      *r.index,
      [&](const llvm::Instruction *inst) -> AlignedLine {
        SourceLocation l = ModuleIndex::locationOf(inst);
        return l.valid() ? lineOf(l.line) : 0;
      },
      [](AlignedLine) { return true; });
  TraceReader reader(dir / "run.trace", p.module.key);
  replayTrace(*r.module.module, *r.index, reader, &recorder);
  r.log = recorder.take();
  return r;
}

std::string storeName(const llvm::Instruction *s) {
  LineEffect e;
  e.inst = s;
  return storeTargetName(e);
}

// The executions of one line, in run order.
std::vector<size_t> executionsOf(const ExecutionLog &log, AlignedLine line) {
  std::vector<size_t> out;
  for (size_t i = 0; i < log.executions.size(); ++i)
    if (log.executions[i].line == line)
      out.push_back(i);
  return out;
}

std::string differenceAt(const AlignedRun &o, size_t oi, const AlignedRun &n, size_t ni) {
  const LineExecution &a = o.log.executions[oi], &b = n.log.executions[ni];
  EffectDifference d = firstDifference(o.log, a, n.log, b, storeName, storeName);
  REQUIRE(d.found);
  REQUIRE(d.oldEffect < a.effectCount);
  REQUIRE(d.newEffect < b.effectCount);
  const LineEffect &x = o.log.effects[a.effectBegin + d.oldEffect];
  const LineEffect &y = n.log.effects[b.effectBegin + d.newEffect];
  return storeTargetName(y) + ": " + effectValueText(x) + " -> " + effectValueText(y);
}

unsigned same(unsigned l) { return l; }

} // namespace

TEST_CASE("the k-th iteration of a loop meets the k-th in the other run", "[align]") {
  TempDir t1, t2;
  const char *oldSrc = "#include <stdio.h>\n"
                       "int main(void) {\n"
                       "  int s = 0;\n"
                       "  for (int i = 0; i < 4; i++) {\n"
                       "    s = s + i * 2;\n"
                       "  }\n"
                       "  printf(\"%d\\n\", s);\n"
                       "  return 0;\n"
                       "}\n";
  std::string newSrc = oldSrc;
  newSrc.replace(newSrc.find("i * 2"), 5, "i * 3");
  AlignedRun o = record(t1.path, oldSrc, same), n = record(t2.path, newSrc, same);
  REQUIRE(o.log.complete);
  Alignment a = alignExecutions(o.log, n.log, storeName, storeName);
  std::vector<size_t> ob = executionsOf(o.log, 5), nb = executionsOf(n.log, 5);
  REQUIRE(ob.size() == 4);
  REQUIRE(nb.size() == 4);
  // Iteration 1 adds 0 in both; from iteration 2 on the sums part.
  CHECK(a.newPeer[nb[0]] == ob[0]);
  CHECK(a.newStatus[nb[0]] == Aligned::Same);
  for (size_t k = 1; k < 4; ++k) {
    CHECK(a.newPeer[nb[k]] == ob[k]);
    CHECK(a.newStatus[nb[k]] == Aligned::Differs);
  }
  CHECK(differenceAt(o, ob[1], n, nb[1]) == "s: 2 -> 3");
  // The loop header's executions (condition and increment) all agree.
  for (size_t i : executionsOf(n.log, 4))
    CHECK(a.newStatus[i] == Aligned::Same);
  // The output line passes another value.
  std::vector<size_t> np = executionsOf(n.log, 7);
  REQUIRE(np.size() == 1);
  CHECK(a.newStatus[np[0]] == Aligned::Differs);
}

TEST_CASE("a call meets its counterpart, a line that moved keeps its alignment", "[align]") {
  TempDir t1, t2;
  const char *oldSrc = "#include <stdio.h>\n"
                       "int twice(int v) {\n"
                       "  int r = v * 2;\n"
                       "  return r;\n"
                       "}\n"
                       "int main(void) {\n"
                       "  int a = twice(3);\n"
                       "  int b = twice(a);\n"
                       "  printf(\"%d %d\\n\", a, b);\n"
                       "  return 0;\n"
                       "}\n";
  // New: a comment line inserted at the top (every line moves down by one) and the
  // second call gets another argument.
  std::string newSrc = std::string("/* header */\n") + oldSrc;
  newSrc.replace(newSrc.find("twice(a)"), 8, "twice(a + 1)");
  TextDiff diff = diffTexts(oldSrc, newSrc);
  // Unchanged lines by the line map, a changed line to its replacement (as debug does).
  auto oldToNew = [&](unsigned l) {
    if (auto m = diff.newLineOf(l))
      return *m;
    return diff.replacementOf(l).value_or(1000 + l);
  };
  AlignedRun o = record(t1.path, oldSrc, oldToNew), n = record(t2.path, newSrc, same);
  Alignment a = alignExecutions(o.log, n.log, storeName, storeName);
  // Line 4 of the new file (`int r = v * 2;`) runs once per call.
  std::vector<size_t> nr = executionsOf(n.log, 4), orr = executionsOf(o.log, 4);
  REQUIRE(nr.size() == 2);
  REQUIRE(orr.size() == 2);
  CHECK(a.newPeer[nr[0]] == orr[0]);
  CHECK(a.newPeer[nr[1]] == orr[1]);
  CHECK(a.newStatus[nr[0]] == Aligned::Same);    // twice(3) in both
  CHECK(a.newStatus[nr[1]] == Aligned::Differs); // twice(6) vs twice(7)
  CHECK(differenceAt(o, orr[1], n, nr[1]) == "r: 12 -> 14");
  // The changed call line meets the line it replaced and differs by the argument.
  std::vector<size_t> nc = executionsOf(n.log, 9);
  REQUIRE(nc.size() == 1);
  CHECK(a.newStatus[nc[0]] == Aligned::Differs);
  // The first call's line is unchanged, moved down by one, and agrees.
  std::vector<size_t> n1 = executionsOf(n.log, 8);
  REQUIRE(n1.size() == 1);
  CHECK(a.newStatus[n1[0]] == Aligned::Same);
}

TEST_CASE("under a call whose line has no counterpart, the callee's executions meet theirs by "
          "callee",
          "[align]") {
  TempDir t1, t2;
  const char *oldSrc = "#include <stdio.h>\n"
                       "int step(int v) {\n"
                       "  int r = v + 8;\n"
                       "  return r;\n"
                       "}\n"
                       "int main(void) {\n"
                       "  int a = step(1);\n"
                       "  int b = step(a);\n"
                       "  printf(\"%d %d\\n\", a, b);\n"
                       "  return 0;\n"
                       "}\n";
  std::string newSrc = oldSrc;
  newSrc.replace(newSrc.find("v + 8"), 5, "v + 7");
  // The old calling lines are named apart, as debug names a line moved to another file
  // that it cannot follow: the calls' execution indices differ.
  auto apart = [](unsigned l) { return l == 7 || l == 8 ? 1000 + l : l; };
  AlignedRun o = record(t1.path, oldSrc, apart), n = record(t2.path, newSrc, same);
  std::vector<size_t> nr = executionsOf(n.log, 3), orr = executionsOf(o.log, 3);
  REQUIRE(nr.size() == 2);
  REQUIRE(orr.size() == 2);
  CHECK(n.log.executions[nr[0]].index != o.log.executions[orr[0]].index);
  Alignment a = alignExecutions(o.log, n.log, storeName, storeName);
  // The k-th call of `step` meets the k-th: 9 against 8, then 17 against 15.
  CHECK(a.newPeer[nr[0]] == orr[0]);
  CHECK(a.newPeer[nr[1]] == orr[1]);
  CHECK(differenceAt(o, orr[0], n, nr[0]) == "r: 9 -> 8");
  CHECK(differenceAt(o, orr[1], n, nr[1]) == "r: 17 -> 15");
  // The calling lines themselves stay apart: their names differ.
  for (size_t i : executionsOf(n.log, 7))
    CHECK(a.newStatus[i] == Aligned::Unmatched);
  // What each execution read is kept: `step`'s line read v = 1 in both first calls.
  const LineExecution &first = n.log.executions[nr[0]];
  REQUIRE(first.inputCount >= 1);
  const LineInput &in = n.log.inputs[first.inputBegin];
  CHECK(valueName(in.load) == "v");
  CHECK(inputValueText(in) == "1");
}

TEST_CASE("each call of a comparator that qsort makes meets its own counterpart", "[align]") {
  TempDir t1, t2;
  const char *oldSrc = "#include <stdio.h>\n"
                       "#include <stdlib.h>\n"
                       "static int cmp(const void *a, const void *b) {\n"
                       "  return *(const int *)a - *(const int *)b;\n"
                       "}\n"
                       "int main(void) {\n"
                       "  int v[6] = {9, 2, 7, 4, 1, 8};\n"
                       "  qsort(v, 6, sizeof v[0], cmp);\n"
                       "  printf(\"%d\\n\", v[0]);\n"
                       "  return 0;\n"
                       "}\n";
  std::string newSrc = oldSrc;
  newSrc.replace(newSrc.find("v[0]);"), 6, "v[5]);");
  AlignedRun o = record(t1.path, oldSrc, same), n = record(t2.path, newSrc, same);
  std::vector<size_t> nc = executionsOf(n.log, 4), oc = executionsOf(o.log, 4);
  REQUIRE(nc.size() > 3);
  REQUIRE(nc.size() == oc.size());
  std::set<uint64_t> indices;
  for (size_t i : nc)
    indices.insert(n.log.executions[i].index);
  CHECK(indices.size() == nc.size()); // one call of qsort, a context per callback
  Alignment a = alignExecutions(o.log, n.log, storeName, storeName);
  for (size_t k = 0; k < nc.size(); ++k) {
    CHECK(a.newPeer[nc[k]] == oc[k]);
    CHECK(a.newStatus[nc[k]] == Aligned::Same);
  }
}

TEST_CASE("a store into a renamed variable compares equal, into another variable not", "[align]") {
  TempDir t1, t2, t3;
  const char *oldSrc = "#include <stdio.h>\n"
                       "int main(void) {\n"
                       "  int count = 0, other = 0;\n"
                       "  count = 5;\n"
                       "  printf(\"%d %d\\n\", count, other);\n"
                       "  return 0;\n"
                       "}\n";
  std::string renamed = oldSrc, retargeted = oldSrc;
  for (size_t p; (p = renamed.find("count")) != std::string::npos;)
    renamed.replace(p, 5, "total");
  retargeted.replace(retargeted.find("count = 5"), 9, "other = 5");
  AlignedRun o = record(t1.path, oldSrc, same), r = record(t2.path, renamed, same),
             x = record(t3.path, retargeted, same);
  StoreTarget oldRenamed = [](const llvm::Instruction *s) {
    std::string n = storeName(s);
    return n == "count" ? std::string("total") : n;
  };
  Alignment ar = alignExecutions(o.log, r.log, oldRenamed, storeName);
  std::vector<size_t> line4 = executionsOf(r.log, 4);
  REQUIRE(line4.size() == 1);
  CHECK(ar.newStatus[line4[0]] == Aligned::Same);
  Alignment ax = alignExecutions(o.log, x.log, storeName, storeName);
  std::vector<size_t> x4 = executionsOf(x.log, 4);
  REQUIRE(x4.size() == 1);
  CHECK(ax.newStatus[x4[0]] == Aligned::Differs);
}

TEST_CASE("effects read as C values: branches, chars, doubles, array elements", "[align]") {
  TempDir t;
  const char *src = "#include <stdio.h>\n"
                    "int main(void) {\n"
                    "  char c = 'q';\n"
                    "  double d = 2.5;\n"
                    "  int a[4] = {0};\n"
                    "  int i = 2;\n"
                    "  a[i] = -7;\n"
                    "  if (d > 3.0) c = 'z';\n"
                    "  printf(\"%c %g %d\\n\", c, d, a[2]);\n"
                    "  return 0;\n"
                    "}\n";
  AlignedRun r = record(t.path, src, same);
  auto effectsOn = [&](unsigned line) {
    std::vector<std::string> out;
    for (size_t i : executionsOf(r.log, line)) {
      const LineExecution &e = r.log.executions[i];
      for (size_t k = 0; k < e.effectCount; ++k) {
        const LineEffect &x = r.log.effects[e.effectBegin + k];
        std::string name = x.kind == LineEffect::Store ? storeTargetName(x) + "=" : "";
        out.push_back(name + effectValueText(x));
      }
    }
    return out;
  };
  CHECK(effectsOn(3) == std::vector<std::string>{"c='q' (113)"});
  CHECK(effectsOn(4) == std::vector<std::string>{"d=2.5"});
  CHECK(effectsOn(7) == std::vector<std::string>{"a[2]=-7"});
  CHECK(effectsOn(8) == std::vector<std::string>{"false"});
}

TEST_CASE("calls read as the source names them: glibc's redirections undone, a call "
          "through a pointer named by its variable",
          "[align]") {
  CHECK(sourceFunctionName("__isoc99_sscanf") == "sscanf");
  CHECK(sourceFunctionName("__rl_wrap___isoc99_scanf") == "scanf");
  CHECK(sourceFunctionName("__posix_getopt") == "getopt");
  CHECK(sourceFunctionName("__printf_chk") == "printf");
  CHECK(sourceFunctionName("emit_word") == "emit_word");
  CHECK(sourceFunctionName("__chk") == "__chk");
  TempDir t;
  // _POSIX_C_SOURCE makes glibc's <unistd.h> redirect getopt to __posix_getopt.
  const char *src = "#define _POSIX_C_SOURCE 200809L\n"
                    "#include <stdio.h>\n"
                    "#include <unistd.h>\n"
                    "static int twice(int v) { return 2 * v; }\n"
                    "int main(int argc, char **argv) {\n"
                    "  int (*f)(int) = twice;\n"
                    "  int opt = getopt(argc, argv, \"ab\");\n"
                    "  printf(\"%d %d\\n\", f(opt), twice(3));\n"
                    "  return 0;\n"
                    "}\n";
  AlignedRun r = record(t.path, src, same);
  std::set<std::string> calls;
  const llvm::Function *main = r.module.module->getFunction("main");
  REQUIRE(main);
  for (const llvm::BasicBlock &bb : *main)
    for (const llvm::Instruction &inst : bb)
      if (llvm::isa<llvm::CallBase>(inst))
        calls.insert(calleeText(&inst));
  CHECK(calls.count("getopt") == 1);
  CHECK(calls.count("twice") == 1);
  CHECK(calls.count("the function in `f`") == 1);
  CHECK(calls.count("__posix_getopt") == 0);
}

TEST_CASE("a goto label moved below a while: iterations of the jump's loop never meet "
          "iterations of the while on the same line",
          "[align]") {
  // `retry:` moved from above `while (*p == ' ')` (old line 10) to below it. In the old
  // version the label's block jumps into the while and carries its line, so the jump's
  // loop and the while start on the same line; their first iterations used to meet.
  TempDir t1, t2;
  fs::path fx = fixturesDir() / "regressions" / "goto_label_moved";
  std::string input = readFile(fx / "input.txt");
  auto oldLine = [](unsigned l) -> unsigned {
    return l < 10 ? l : l == 10 ? 900 : l <= 12 ? l - 1 : l; // old 10 is the label
  };
  AlignedRun o = record(t1.path, readFile(fx / "old" / "main.c"), oldLine, input),
             n = record(t2.path, readFile(fx / "new" / "main.c"), same, input);
  REQUIRE(o.log.complete);
  REQUIRE(n.log.complete);
  Alignment a = alignExecutions(o.log, n.log, storeName, storeName);
  // Every skip of blanks the new run made, the old run made too, with the same outcome:
  // no execution of the while is the new run's alone.
  std::vector<size_t> whileNew = executionsOf(n.log, 10);
  REQUIRE(whileNew.size() >= 4);
  for (size_t i : whileNew) {
    INFO("new execution " << i);
    REQUIRE(a.newPeer[i] != Alignment::npos);
    CHECK(a.newStatus[i] == Aligned::Same);
  }
  // After the comment the old run's `goto` lands above the while and skips the blank
  // again: those executions are the old run's alone.
  std::vector<size_t> whileOld = executionsOf(o.log, 10);
  CHECK(std::any_of(whileOld.begin(), whileOld.end(),
                    [&](size_t i) { return a.oldPeer[i] == Alignment::npos; }));
  // The `if` the label now stands for runs twice in the second call in both runs, and
  // its executions meet theirs.
  for (size_t i : executionsOf(n.log, 13)) {
    INFO("new execution " << i);
    CHECK(a.newPeer[i] != Alignment::npos);
  }
}
