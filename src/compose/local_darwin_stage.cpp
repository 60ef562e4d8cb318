// Local Darwin (docs/debug.md, "Local Darwin"). On a real program the input passes
// through a lexer, a parser and an interpreter before it reaches the changed code, and a
// formula over its bytes is the wrong place to reason. The changed function's own inputs
// are the right place: the call the unit test stage carved is made again by a harness
// that reads the call's integer arguments and fields from stdin, and that harness, built
// against each version's function and the rest of that version's program, is debugged
// like any program. Its composition is over named values ("op->arg"), and every
// alternative it finds is run on both versions' functions before the report uses it.
#include "build/cache.h"
#include "compose/debug_stages.h"

#include "rootline/build.h"
#include "rootline/differential_test.h"
#include "rootline/error.h"
#include "rootline/expr_text.h"
#include "rootline/fs.h"
#include "rootline/hash.h"

#include <llvm/IR/Module.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <sstream>

namespace rootline::debug {

namespace {

// One run of the harness: one call of one function.
constexpr double kRunTimeoutSeconds = 10;
// Alternatives kept in the report.
constexpr size_t kMaxAlternatives = 4;
// A run this long, most of it in the chosen call, is not composed again at the call.
constexpr uint64_t kLongRunInstances = 1000000;

std::vector<std::string> words(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

// A value as the harness reads it and C shows it: unsigned integers as unsigned numbers
// of their width, floating-point values as the shortest decimal that reads back as the
// same value ("-4.3"), or, `exact`, to the 17th digit as the harness's input file holds
// them.
std::string valueText(const LocalValue &v, int64_t raw, bool exact = false) {
  char buf[64];
  if (v.isFloat) {
    double d = 0;
    if (v.bytes == 4) {
      uint32_t bits = static_cast<uint32_t>(raw);
      float f;
      std::memcpy(&f, &bits, 4);
      d = f;
    } else {
      std::memcpy(&d, &raw, 8);
    }
    if (exact) {
      std::snprintf(buf, sizeof buf, "%.17g", d);
      return buf;
    }
    return shortestDecimal(d, v.bytes == 4);
  }
  if (v.isSigned)
    return std::to_string(raw);
  uint64_t u = static_cast<uint64_t>(raw);
  if (v.bytes < 8)
    u &= (1ull << (8 * v.bytes)) - 1;
  return std::to_string(u);
}

// A value for the reader: an enum's by its enumerator's name ("K_ADD").
std::string shown(const LocalValue &v, const std::string &text) {
  for (const auto &[value, name] : v.enumerators)
    if (std::to_string(value) == text)
      return name;
  return text;
}

// A word of the harness's input read as `v` reads it, shown as valueText shows it.
std::optional<std::string> wordText(const LocalValue &v, const std::string &word) {
  try {
    if (!v.isFloat)
      return valueText(v, static_cast<int64_t>(std::stoll(word)));
    return shortestDecimal(std::stod(word), v.bytes == 4);
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

// A condition over the harness's inputs (`(int)rl_in[12] > (int)rl_in[9]`) with their
// names (`(int)t->value > (int)m->limit`).
std::string named(std::string text, const std::vector<LocalValue> &values) {
  for (size_t j = values.size(); j-- > 0;) // rl_in[12] before rl_in[1]
    for (const char *array : {"rl_in[", "rl_fl["}) {
      std::string slot = array + std::to_string(j) + "]";
      for (size_t at = text.find(slot); at != std::string::npos; at = text.find(slot, at))
        text.replace(at, slot.size(), values[j].name);
    }
  return text;
}

// "op->arg: 7 → 3" for each input the alternative changes (the inputs in order, a word
// each).
std::vector<std::string> changesOf(const std::vector<LocalValue> &values,
                                   const std::string &alternative) {
  std::vector<std::string> out, now = words(alternative);
  size_t w = 0;
  for (const LocalValue &v : values) {
    if (!v.input)
      continue;
    if (w >= now.size())
      break;
    std::string was = valueText(v, v.value);
    if (auto is = wordText(v, now[w++]); is && *is != was)
      out.push_back(v.name + ": " + shown(v, was) + " → " + shown(v, *is));
  }
  return out;
}

// What the call returns, from a harness run's output ("return 5", "return").
std::string returnedText(const std::string &output) {
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("returns", 0) == 0)
      return "return" + readableNumber(line).substr(7);
    if (line.rfind("ends with ", 0) == 0)
      return "end with " + line.substr(10);
  }
  return "do not return";
}

// What a harness run printed, and how it ended when it did not exit 0 (the call exited
// the process, or aborted): "ends with exit 2".
std::string harnessResult(const RunSummary &run) {
  return run.stdoutBytes + (run.outcome == "exit 0" ? "" : "ends with " + run.outcome + "\n");
}

// The harness built against one version: its function's unit (through the harness's
// #include of the unit's source), and the rest of that version's program.
BuiltVersion buildHarness(const fs::path &source, const Version &v, const llvm::Function &fn,
                          const OtherNames &otherNames) {
  std::optional<UnitSource> unit = unitSourceOf(fn);
  if (!unit)
    throw Error("`" + fn.getName().str() + "` has no compile unit in the debug information");
  TranslationUnit tu;
  tu.source = source;
  tu.flags = unit->flags;
  tu.flags.push_back("-DRL_UNIT_SOURCE=\"" + unit->path.string() + "\"");
  tu.flags.push_back("-w");
  tu.workDir = unit->workDir;
  BuildRecipe recipe;
  recipe.units = {tu};
  recipe.libs = v.program.recipe.libs;
  recipe.origin = "local Darwin harness";
  BuiltModule harness = buildModule(recipe);
  fs::path rest = programWithoutUnitBitcode(*v.module.module, v.program.module.key, fn, otherNames);
  BuiltModule linked = linkBitcodeModule({harness.unitBitcode.at(0), rest});
  std::vector<std::string> linkFlags = v.program.linkFlags;
  for (const auto &l : recipe.libs)
    linkFlags.push_back("-l" + l);
  BuiltVersion built;
  built.traced = buildTracedModule(linked, linkFlags);
  built.traced.recipe = recipe;
  built.native =
      linkExecutable(linked.bitcode, linked.key, "native", {}, recipe.libs, v.program.linkFlags)
          .path;
  return built;
}

// One sentence for an alternative: what the inputs change and what both calls do.
std::string sentence(const LocalComposition &lc, const LocalAlternative &a) {
  std::string with;
  for (const auto &c : a.changes)
    with += (with.empty() ? "" : ", ") + c;
  std::string what = a.agree ? "both versions' " + lc.function + " " + returnedText(a.oldResult) +
                                   ", print and leave the same"
                             : resultDifference(a.oldResult, a.newResult);
  std::string flips = a.demonstrates.empty() ? "" : " (" + a.demonstrates + ")";
  return "local Darwin: call " + std::to_string(lc.occurrence) + " of `" + lc.function +
         "` made again with " + (with.empty() ? "its carved values" : with) + flips + ": " + what +
         " (run on both versions; with the carved values " +
         resultDifference(lc.oldResult, lc.newResult) + ")";
}

} // namespace

bool localDarwinCertain(const DebugRequest &req, const DebugReport &report) {
  return req.carveStages &&
         (req.localDarwin == "always" ||
          (req.localDarwin == "auto" && report.direction.rfind("undecided", 0) == 0));
}

bool wantsLocalDarwin(const DebugRequest &req, const DebugReport &report,
                      const ChosenCall &chosen) {
  return localDarwinCertain(req, report) || (req.carveStages && req.localDarwin == "auto" &&
                                             !report.candidates.at(chosen.candidate).ran);
}

void composeLocally(const DebugRequest &req, const Version &oldV, const Version &newV,
                    const ChosenCall &chosen, const Deadline &deadline, Stages &stages,
                    DebugReport &report) {
  auto skip = [&](const std::string &why) { stages.note("no local Darwin: " + why); };
  const llvm::Function *of = oldV.module.module->getFunction(chosen.function),
                       *nf = newV.module.module->getFunction(chosen.function);
  if (!of || !nf)
    return skip("`" + chosen.function + "` is not defined in both versions");
  std::vector<LocalValue> inputs = localValues(chosen.call, *nf);
  size_t inputCount = static_cast<size_t>(
      std::count_if(inputs.begin(), inputs.end(), [](const LocalValue &v) { return v.input; }));
  if (inputCount == 0)
    return skip("call " + std::to_string(chosen.call.occurrence) + " of `" + chosen.function +
                "` read no scalar argument or field that the trace gives");

  // Composing at a call pays off when the call is a small part of the run (after a lexer,
  // a parser). A long call that runs most of a long run is no smaller a formula than the
  // whole program's, whose composition did not finish: it would spend its time for
  // nothing.
  const std::string &carvedIn = report.candidates.at(chosen.candidate).version;
  const uint64_t runInstances = (carvedIn == "old" ? oldV : newV).trace.replay.instances;
  if (req.localDarwin == "auto" && runInstances >= kLongRunInstances &&
      chosen.call.instances * 2 >= runInstances)
    return skip("call " + std::to_string(chosen.call.occurrence) + " of `" + chosen.function +
                "` runs " + std::to_string(chosen.call.instances) + " of the " + carvedIn +
                " run's " + std::to_string(runInstances) +
                " instances: composing there is no smaller than the whole program");

  LocalComposition lc;
  lc.function = chosen.function;
  lc.occurrence = chosen.call.occurrence;
  lc.version = report.candidates.at(chosen.candidate).version;
  lc.call = chosen.callText;
  lc.source = localHarnessSource(chosen.call, *nf, inputs);
  lc.harnessFile = "local-darwin/harness_" + chosen.function + ".c";
  std::string carved;
  for (const auto &v : inputs)
    if (v.input) {
      lc.inputs.emplace_back(v.name, shown(v, valueText(v, v.value)));
      carved += valueText(v, v.value, /*exact=*/true) + "\n";
    }
  // The harness lives in the cache under its content: a warm run builds nothing.
  fs::path source = buildcache::sourceByContent("local-harness", "rootline-local-harness-v1",
                                                "harness.c", lc.source);

  DebugRequest local;
  try {
    stages.update("building the harness of " + chosen.function + " for both versions");
    local.oldBuilt = buildHarness(source, oldV, *of, chosen.oldOtherNames);
    local.newBuilt = buildHarness(source, newV, *nf, chosen.newOtherNames);
  } catch (const Error &e) {
    return skip(std::string("the harness does not build: ") + e.what());
  }
  if (deadline.expired())
    return skip("the budget ended while the harness was built");
  local.oldRoot = req.oldRoot;
  local.newRoot = req.newRoot;
  local.oldLabel = req.oldLabel;
  local.newLabel = req.newLabel;
  local.sourceDiff = req.sourceDiff;
  local.input.stdinBytes = carved;
  lc.stdinText = carved;
  local.condition = req.condition;
  local.solverTimeoutMs = req.solverTimeoutMs;
  local.maxExprNodes = req.maxExprNodes;
  local.timeoutSeconds = kRunTimeoutSeconds;
  local.budgetSeconds = std::max(1.0, deadline.remaining());
  local.carveStages = false;
  stages.update("composing at " + chosen.function + " over " + std::to_string(inputCount) +
                " named value(s)");
  // The nested job's stages show as this stage's counts: it can take most of the budget.
  std::optional<Progress> nestedProgress;
  if (stages.progress()) {
    nestedProgress.emplace(*stages.progress(), "at " + chosen.function + ": ");
    local.progress = &*nestedProgress;
  }
  DebugReport nested;
  try {
    nested = debugRegression(local);
  } catch (const Error &e) {
    return skip(std::string("the harness does not tell the versions apart: ") + e.what());
  }
  lc.oldResult = harnessResult(nested.oldRun);
  lc.newResult = harnessResult(nested.newRun);
  lc.direction = nested.direction;
  lc.decided = !nested.direction.empty() && nested.direction.rfind("undecided", 0) != 0;
  lc.oldConstraints = nested.oldConstraints;
  lc.newConstraints = nested.newConstraints;
  // Alternatives that ran on both versions' functions: the composition's (each flips a
  // branch of a line) and the value evidence's (inputs of the failing partition where
  // a changed line computes the same value, or another), those on which the versions
  // agree first. Lines of the harness itself are not the program's.
  std::vector<LocalAlternative> found;
  auto add = [&](const DebugCandidate &c, const ProgramInput &input, const RunSummary &o,
                 const RunSummary &n, bool agree, bool flips) {
    if (fs::path(c.file).is_absolute() || fs::path(c.file) == source)
      return;
    LocalAlternative a;
    a.file = c.file;
    a.line = c.line;
    a.stdinText = input.stdinBytes;
    a.changes = changesOf(inputs, a.stdinText);
    a.oldResult = harnessResult(o);
    a.newResult = harnessResult(n);
    a.agree = agree;
    // What the composition says the alternative does to the branch it flips, in the
    // inputs' names: "it makes the old version's `(int)t->value > (int)m->limit` false
    // at interp.c:49, into code the new version lacks".
    const std::string lead = "the alternative input makes";
    if (flips && c.demonstrates.rfind(lead, 0) == 0)
      a.demonstrates = "it makes" + named(c.demonstrates.substr(lead.size()), inputs);
    a.text = sentence(lc, a);
    if (!a.changes.empty() &&
        std::none_of(found.begin(), found.end(), [&](const LocalAlternative &b) {
          return b.stdinText == a.stdinText && b.file == a.file && b.line == a.line;
        }))
      found.push_back(std::move(a));
  };
  for (const DebugCandidate &c : nested.candidates) {
    if (c.ran && c.hasAlternative && c.weakEvidence.empty())
      add(c, c.alternative, c.oldRun, c.newRun, c.removesFailure, true);
    for (const ValueEvidence &e : c.valueEvidence)
      if (e.ran)
        add(c, e.input, e.oldRun, e.newRun, e.outputsAgree, false);
  }
  std::stable_partition(found.begin(), found.end(),
                        [](const LocalAlternative &a) { return a.agree; });
  if (found.size() > kMaxAlternatives)
    found.resize(kMaxAlternatives);
  lc.alternatives = std::move(found);
  // Each alternative is evidence for the line it flips; the tested candidate gets the
  // first one on which the versions agree when none flips its own line.
  bool testedHasOne = false;
  for (DebugCandidate &c : report.candidates)
    for (const LocalAlternative &a : lc.alternatives)
      if (c.localAlternative.empty() && a.line == c.line && a.file == c.file) {
        c.localAlternative = a.text;
        c.reasons.push_back(a.text);
        testedHasOne |= &c == &report.candidates[chosen.candidate];
      }
  DebugCandidate &tested = report.candidates[chosen.candidate];
  if (!testedHasOne && !lc.alternatives.empty() && lc.alternatives.front().agree) {
    const LocalAlternative &a = lc.alternatives.front();
    tested.localAlternative = a.text + ", at " + a.file + ":" + std::to_string(a.line);
    tested.reasons.push_back(tested.localAlternative);
  }
  lc.summary = "local Darwin composed the two versions of `" + lc.function + "` over " +
               std::to_string(inputCount) + " value(s) of call " + std::to_string(lc.occurrence) +
               " (" + std::to_string(lc.oldConstraints) + " and " +
               std::to_string(lc.newConstraints) + " constraint(s)): " + lc.direction + "; " +
               std::to_string(lc.alternatives.size()) + " alternative(s) ran on both versions";
  stages.note(lc.summary);
  report.localComposition = std::move(lc);
}

} // namespace rootline::debug
