// The unit test stage (docs/debug.md, "Differential unit test"): the rank-1 candidate's
// function, called again from the state one of its calls in the failing run began with,
// against each version's own code. A call on which the two versions return or leave
// something else becomes a cmocka test that passes on the old version and fails on the
// new one; it is built and run on both before the report says so.
#include "compose/debug_stages.h"

#include "support/debug_types.h"

#include "rootline/carve.h"
#include "rootline/differential_test.h"
#include "rootline/error.h"
#include "rootline/expr_text.h"
#include "rootline/output_values.h"
#include "rootline/process.h"

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugProgramInstruction.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>

namespace rootline::debug {

namespace {

// How long one run of a test may take (the carved call is one call of a function; the
// recorder makes up to 48, each stopped after 1 s), and one build; all are cut to the
// stage's deadline.
constexpr double kTestRunSeconds = 10, kRecorderSeconds = 60, kBuildSeconds = 300;
// Candidates looked at for a function to test when the first ones are in none.
constexpr size_t kCandidatesLooked = 3;

std::string typeText(const llvm::FunctionType *t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t->print(os);
  return s;
}

// The call as C would write it, with the carved arguments: integers as numbers,
// pointers as what they point to.
// "a 24", "an 8", "an 18".
std::string sized(uint64_t n) {
  std::string digits = std::to_string(n);
  bool vowel =
      digits[0] == '8' || n == 11 || n == 18 ||
      (digits.size() % 3 == 2 && (digits.rfind("11", 0) == 0 || digits.rfind("18", 0) == 0));
  return (vowel ? "an " : "a ") + digits;
}

std::string callText(const CarvedCall &call, const llvm::Function &fn) {
  std::string s = fn.getName().str() + "(";
  std::vector<std::string> names = parameterNames(fn);
  for (unsigned k = 0; k < fn.arg_size() && k < call.args.size(); ++k) {
    llvm::Type *t = fn.getArg(k)->getType();
    const Val &v = call.args[k];
    if (k)
      s += ", ";
    if (!names[k].empty())
      s += names[k] + " = ";
    if (t->isPointerTy()) {
      if (k < call.argTargets.size() && call.argTargets[k]) {
        const CarvedObject &o = call.objects[call.argTargets[k]->first];
        std::string kind = o.kind == CarvedObject::Kind::Global ? "`" + o.global + "`"
                           : o.kind == CarvedObject::Kind::Heap
                               ? sized(o.size) + "-byte heap object"
                               : sized(o.size) + "-byte local";
        s += call.argTargets[k]->second
                 ? "&" + kind + "[" + std::to_string(call.argTargets[k]->second) + "]"
                 : kind;
      } else if (k < call.argFunctions.size() && call.argFunctions[k]) {
        s += "`" + call.functions[*call.argFunctions[k]].name + "`";
      } else {
        s += v.lo ? "a pointer" : "NULL";
      }
    } else if (t->isIntegerTy()) {
      unsigned bits = t->getIntegerBitWidth();
      uint64_t x = bits >= 64 ? v.lo : v.lo & ((1ull << bits) - 1);
      int64_t sx = bits >= 64 || bits == 1 ? static_cast<int64_t>(x)
                                           : static_cast<int64_t>(x << (64 - bits)) >> (64 - bits);
      s += std::to_string(sx);
    } else {
      s += "a floating-point value";
    }
  }
  return s + ")";
}

ProcessResult runTest(const fs::path &exe, const Deadline &deadline,
                      double seconds = kTestRunSeconds) {
  ProcessSpec spec;
  spec.argv = {exe.string()};
  // As the user runs it: with address randomization, so a test whose verdict depends on
  // where memory is laid out is not taken for one that tells the versions apart.
  spec.noAddressRandomization = false;
  spec.timeoutSeconds = deadline.clamp(seconds, 0.5);
  spec.maxOutputBytes = 4u << 20;
  return runProcess(spec);
}

} // namespace

// The first line where the two results differ, in words: "the old version returns 1,
// the new one returns 0", "... prints \"3\" ...", or the object whose bytes differ.
std::string readableNumber(const std::string &line) {
  size_t at = line.rfind(" = ");
  at = line.rfind("leaves ", 0) == 0 && at != std::string::npos ? at + 3
       : line.rfind("returns ", 0) == 0                         ? 8
                                                                : std::string::npos;
  if (at == std::string::npos)
    return line;
  std::string value = line.substr(at);
  // A decimal fraction or exponent, or a hex float ("%a"), all of the rest: not an
  // integer, not a pointer ("0x55d0…" has no binary exponent).
  bool hex = value.find_first_of("xX") != std::string::npos;
  if (value.find_first_of(hex ? "pP" : ".eE") == std::string::npos)
    return line;
  char *end = nullptr;
  double d = std::strtod(value.c_str(), &end);
  if (end != value.c_str() + value.size())
    return line;
  return line.substr(0, at) + shortestDecimal(d);
}

std::string resultDifference(const std::string &oldState, const std::string &newState) {
  auto said = [](std::string line) {
    line = readableNumber(line);
    if (line.size() > 80)
      line = line.substr(0, 77) + "...";
    if (line.rfind("prints", 0) == 0)
      return line.substr(0, line.find(':')) + " \"" + line.substr(line.find(':') + 1) + "\"";
    return line.empty() ? std::string("does nothing more") : line;
  };
  std::vector<std::string> a = outputLines(oldState), b = outputLines(newState);
  std::string returned;
  for (size_t k = 0; k < std::max(a.size(), b.size()); ++k) {
    std::string x = k < a.size() ? a[k] : "", y = k < b.size() ? b[k] : "";
    if (x.rfind("returns", 0) == 0 && x == y)
      returned = readableNumber(x);
    if (x == y)
      continue;
    if (x.rfind("o", 0) == 0 && y.rfind("o", 0) == 0 && x.find(':') != std::string::npos &&
        x.substr(0, x.find(':')) == y.substr(0, y.find(':')))
      return "both versions " +
             (returned.empty() ? std::string("return") : "return" + returned.substr(7)) +
             ", but they leave different bytes in object " + x.substr(0, x.find(':'));
    return "the old version " + said(x) + ", the new one " + said(y);
  }
  return "the results differ";
}

std::optional<ChosenCall>
makeDifferentialUnitTest(const Version &oldV, const Version &newV, const ProgramInput &input,
                         const std::map<std::string, std::string> &renames, const fs::path &work,
                         const Deadline &deadline, Stages &stages, DebugReport &report) {
  if (report.candidates.empty())
    return std::nullopt;
  // The rank-1 candidate's function; when its line is in none (a macro, a table, a
  // function's header) or in main, the next candidate's among the first few.
  size_t pick = 0;
  while (pick + 1 < std::min<size_t>(report.candidates.size(), kCandidatesLooked) &&
         (report.candidates[pick].function.empty() || report.candidates[pick].function == "main"))
    ++pick;
  DebugCandidate &c = report.candidates[pick];
  std::string name = c.function;
  std::string whose =
      pick == 0 ? std::string("the rank-1 candidate") : "candidate " + std::to_string(c.rank);
  std::optional<ChosenCall> result;
  auto skip = [&](const std::string &why) {
    stages.note("no differential unit test for " + whose + ": " + why);
    return result;
  };
  if (name.empty() || name == "main")
    return skip(name.empty() ? "its line is in no function" : "its line is in main");
  const llvm::Function *of = oldV.module.module->getFunction(name),
                       *nf = newV.module.module->getFunction(name);
  if (!of || !nf || of->isDeclaration() || nf->isDeclaration())
    return skip("`" + name + "` is not defined in both versions");
  if (auto why = untestableSignature(*nf))
    return skip("`" + name + "` cannot be called from C with carved values: " + *why);
  if (typeText(of->getFunctionType()) != typeText(nf->getFunctionType()))
    return skip("`" + name + "` has another signature in each version");
  std::optional<UnitSource> oldUnit = unitSourceOf(*of), newUnit = unitSourceOf(*nf);
  if (!oldUnit || !newUnit)
    return skip("`" + name + "` has no compile unit in the debug information");

  const Version &from = c.version == "old" ? oldV : newV;
  stages.update("carving the calls of " + name);
  std::vector<CarvedCall> calls = carveCalls(
      from, from.traceFile, name, c.file, c.runsAt ? c.runsAt : c.line, input.stdinBytes, deadline);
  if (calls.empty())
    return skip("its line ran in no call of `" + name + "` that the trace holds");

  fs::path dir = work / "unit-test";
  fs::path oldRest, newRest;
  bool carvedInNew = &from == &newV;
  OtherNames oldOther = otherNamesFor(renames, false, carvedInNew),
             newOther = otherNamesFor(renames, true, carvedInNew);
  try {
    stages.update("building the program without " + name + "'s unit");
    // Each version's own module and clang runs: both at once (bothVersions).
    bothVersions(
        stages,
        [&](Stages &) {
          oldRest = programWithoutUnit(*oldV.module.module, oldV.program.module.key, *of,
                                       deadline.clamp(kBuildSeconds, 0.5), oldOther);
        },
        [&](Stages &) {
          newRest = programWithoutUnit(*newV.module.module, newV.program.module.key, *nf,
                                       deadline.clamp(kBuildSeconds, 0.5), newOther);
        });
  } catch (const Error &e) {
    return skip(e.what());
  }
  auto build = [&](const std::string &source, bool old, const std::string &tag) {
    const Version &v = old ? oldV : newV;
    return buildDifferentialTest(source, old ? *oldUnit : *newUnit, old ? oldRest : newRest,
                                 v.program.recipe.libs, v.program.linkFlags,
                                 dir / (tag + (old ? "-old" : "-new")),
                                 deadline.clamp(kBuildSeconds, 0.5));
  };
  std::string origin = "the failing run of the test (" + from.name + " version)";
  try {
    // Every carved call made again against both versions, in one program each: the
    // first call whose result differs is the test.
    std::vector<const CarvedCall *> all;
    for (const auto &call : calls)
      all.push_back(&call);
    stages.update("making " + std::to_string(all.size()) + " carved calls of " + name +
                  " on both versions");
    std::string recorder = callRecorderSource(all, *nf);
    ProcessResult o, n;
    bothVersions(
        stages,
        [&](Stages &) { o = runTest(build(recorder, true, "record"), deadline, kRecorderSeconds); },
        [&](Stages &) {
          n = runTest(build(recorder, false, "record"), deadline, kRecorderSeconds);
        });
    if (!o.exitedWith(0) || !n.exitedWith(0))
      return skip("the carved calls did not all run (" + o.outcome() + " / " + n.outcome() + ")");
    std::map<uint64_t, std::string> oldResults = recordedCalls(o.out),
                                    newResults = recordedCalls(n.out);
    const CarvedCall *chosen = nullptr;
    size_t oldFails = 0;
    for (const CarvedCall &call : calls) {
      const std::string &a = oldResults[call.occurrence], &b = newResults[call.occurrence];
      // The old version's function does not return on the carved state. When it ends
      // the process on purpose (an exit; an abort: an interpreter's error raised with
      // no handler set, a failed assert) and the new one does otherwise, a test can
      // expect that end. Not a fault (the carved state may lack what the call reached)
      // nor the 1-s alarm (a busy machine may ring it too).
      std::string end = recordedEnd(a);
      bool deliberate = end.starts_with("ends with exit ") || end == "ends with signal 6";
      if (a.empty() || (end != "returns" && (!deliberate || end == recordedEnd(b)))) {
        ++oldFails;
        continue;
      }
      if (a != b) {
        chosen = &call;
        break;
      }
    }
    if (!chosen)
      return skip(
          "none of the " + std::to_string(calls.size()) + " carved calls of `" + name +
          "` returns or leaves anything else in the new version" +
          (oldFails ? " (" + std::to_string(oldFails) + " do not return on the old version's code)"
                    : std::string()));
    const std::string &oldResult = oldResults[chosen->occurrence],
                      &newResult = newResults[chosen->occurrence];
    result = ChosenCall{pick,      name,      *chosen,  callText(*chosen, *nf),
                        oldResult, newResult, oldOther, newOther};
    std::string test = differentialTestSource(*chosen, *nf, origin, oldResult);
    stages.update("checking the test of call " + std::to_string(chosen->occurrence) + " of " +
                  name + " on both versions");
    ProcessResult onOld, onNew;
    bothVersions(
        stages, [&](Stages &) { onOld = runTest(build(test, true, "test"), deadline); },
        [&](Stages &) { onNew = runTest(build(test, false, "test"), deadline); });
    if (!onOld.exitedWith(0) || onNew.exitedWith(0))
      return skip("the test of call " + std::to_string(chosen->occurrence) +
                  (onOld.exitedWith(0)
                       ? " passes on the new version too"
                       : " fails on the old version too (" + onOld.outcome() + ")"));
    DifferentialUnitTest t;
    t.function = name;
    t.occurrence = chosen->occurrence;
    t.version = from.name;
    t.call = callText(*chosen, *nf);
    t.oldResult = oldResult;
    t.newResult = newResult;
    t.passesOld = true;
    t.failsNew = true;
    t.fileName = "unit-test/test_" + name + ".c";
    t.source = test;
    t.summary = "a differential unit test (" + t.fileName + ") calls `" + t.call +
                "` with the state of call " + std::to_string(chosen->occurrence) + " of `" + name +
                "` in the failing run: " + resultDifference(oldResult, newResult) +
                "; it passes on the old version and fails on the new one";
    c.unitTest = t.summary;
    c.reasons.push_back(t.summary);
    report.unitTest = std::move(t);
  } catch (const Error &e) {
    skip(e.what());
  }
  return result;
}

} // namespace rootline::debug
