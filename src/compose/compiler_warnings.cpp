// Compiler warnings the change brought (docs/debug.md, "Compiler warnings"): the units
// that hold changed code are compiled again by clang, syntax only, with their own flags
// and a fixed set of warnings that name likely bugs (a pointer assigned to an integer,
// a format that does not fit its argument, an assignment used as a condition). A warning
// of the new version on a changed line that the old version does not give is a claim a
// reader can check with one compile, and it singles out a changed line the dynamic
// evidence cannot tell from its neighbours (an operand replaced by another variable: no
// one-token edit repairs it, and its revert unit holds many lines).
#include "compose/debug_stages.h"

#include "build/language_flags.h"
#include "rootline/build.h"
#include "rootline/differential_test.h"
#include "rootline/process.h"

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Module.h>

#include <map>
#include <regex>
#include <set>

namespace rootline::debug {

namespace {

// At most this many units per version are compiled again, each within this many seconds.
constexpr size_t kMaxUnits = 24;
constexpr double kUnitSeconds = 10;

// Warnings that name a likely bug whatever the project's style: types that do not fit,
// a format and its arguments, an assignment or comparison where the other was meant, a
// value read before it is set, a bound the compiler knows is wrong. Precedence style
// (`&&` within `||`), sign comparisons and unused names are left out: real changes add
// them without a fault.
const std::vector<std::string> &bugWarnings() {
  static const std::vector<std::string> flags = {
      "int-conversion",
      "incompatible-pointer-types",
      "incompatible-function-pointer-types",
      "pointer-integer-compare",
      "compare-distinct-pointer-types",
      "non-literal-null-conversion",
      "pointer-bool-conversion",
      "format",
      "format-extra-args",
      "format-insufficient-args",
      "parentheses",
      "unused-value",
      "unused-comparison",
      "self-assign",
      "tautological-compare",
      "tautological-constant-out-of-range-compare",
      "tautological-unsigned-zero-compare",
      "tautological-pointer-compare",
      "tautological-overlap-compare",
      "tautological-bitwise-compare",
      "array-bounds",
      "uninitialized",
      "sometimes-uninitialized",
      "sizeof-pointer-memaccess",
      "sizeof-array-argument",
      "sizeof-array-div",
      "constant-logical-operand",
      "bool-operation",
      "logical-not-parentheses",
      "int-in-bool-context",
      "shift-count-overflow",
      "shift-count-negative",
      "division-by-zero",
      "return-type",
      "string-compare",
      "string-plus-int",
      "empty-body",
      "misleading-indentation",
      "unsequenced",
      "for-loop-analysis",
      "null-dereference",
  };
  return flags;
}

// Every warning off but those; the ones clang makes errors stay warnings, so that one
// does not stop the others (clang reports every warning of a unit that parses).
std::vector<std::string> warningArgs() {
  std::vector<std::string> args = {"-fsyntax-only",          "-fno-color-diagnostics",
                                   "-fno-caret-diagnostics", "-fdiagnostics-show-option",
                                   "-ferror-limit=0",        "-Wno-everything"};
  args.insert(args.end(), lenientDiagnosticFlags().begin(), lenientDiagnosticFlags().end());
  for (const std::string &w : bugWarnings()) {
    args.push_back("-W" + w);
    args.push_back("-Wno-error=" + w);
  }
  return args;
}

// Inside the version's tree (not a system header), relative to its top.
bool inTree(const std::string &rel) {
  return !rel.empty() && rel[0] != '/' && !rel.starts_with("..");
}

// The compile units that hold code of a changed file (a unit's own file, or one it
// includes: mawk's rexp.c includes rexp2.c), by their debug information.
std::vector<UnitSource> unitsWithChanges(const Version &v, Diffs &diffs) {
  bool inNew = v.name == "new";
  std::map<std::string, bool> changedFile; // by path relative to the root
  auto changed = [&](const std::string &path) {
    std::string rel = relativeTo(path, v.root);
    auto [it, fresh] = changedFile.try_emplace(rel, false);
    if (fresh)
      it->second = inTree(rel) && !diffs.of(rel, inNew).hunks.empty();
    return it->second;
  };
  std::set<const llvm::DICompileUnit *> chosen;
  std::vector<UnitSource> out;
  for (const llvm::Function &f : *v.module.module) {
    const llvm::DISubprogram *sp = f.getSubprogram();
    if (!sp || !sp->getUnit() || chosen.count(sp->getUnit()))
      continue;
    fs::path dir = sp->getDirectory().str(), file = sp->getFilename().str();
    if (!changed((file.is_absolute() ? file : dir / file).string()))
      continue;
    chosen.insert(sp->getUnit());
    if (std::optional<UnitSource> u = unitSourceOf(f))
      out.push_back(std::move(*u));
    if (out.size() == kMaxUnits)
      break;
  }
  return out;
}

// clang's warnings for `units` of the version at `root`. Touches no shared state: both
// versions' run at once.
std::vector<CompilerWarning> versionWarnings(const std::vector<UnitSource> &units,
                                             const fs::path &root, const std::string &name,
                                             const Deadline &deadline, Stages &stages) {
  std::vector<CompilerWarning> out;
  for (size_t i = 0; i < units.size(); ++i) {
    if (deadline.expired()) {
      stages.cut(name + " version: " + std::to_string(units.size() - i) +
                 " unit(s) not compiled for warnings");
      break;
    }
    std::optional<std::vector<CompilerWarning>> got =
        unitWarnings(units[i], root, deadline.clamp(kUnitSeconds, 0.5));
    if (got)
      out.insert(out.end(), got->begin(), got->end());
  }
  return out;
}

} // namespace

std::vector<CompilerWarning> parseClangWarnings(const std::string &text, const fs::path &workDir,
                                                const fs::path &root) {
  // file:line:col: warning|error: message [-Wflag] (or [-Wflag,-Werror,...])
  static const std::regex line(
      R"(^(.+?):(\d+):\d+: (?:warning|error): (.*) \[-W([^\],]+)[^\]]*\]$)");
  std::vector<CompilerWarning> out;
  for (const std::string &l : outputLines(text)) {
    std::smatch m;
    if (!std::regex_match(l, m, line))
      continue;
    fs::path file = m[1].str();
    if (file.is_relative())
      file = workDir / file;
    CompilerWarning w;
    w.file = relativeTo(file.lexically_normal().string(), root);
    w.line = static_cast<unsigned>(std::stoul(m[2].str()));
    w.message = m[3].str();
    w.flag = m[4].str();
    out.push_back(std::move(w));
  }
  return out;
}

std::optional<std::vector<CompilerWarning>>
unitWarnings(const UnitSource &unit, const fs::path &root, double timeoutSeconds) {
  ProcessSpec spec;
  spec.argv = {clangPath()};
  std::vector<std::string> args = warningArgs();
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.argv.insert(spec.argv.end(), unit.flags.begin(), unit.flags.end());
  spec.argv.push_back(unit.path.string());
  spec.workDir = unit.workDir.string();
  spec.timeoutSeconds = timeoutSeconds;
  ProcessResult r = runProcess(spec);
  if (r.timedOut)
    return std::nullopt; // what it printed before may be cut mid-line
  return parseClangWarnings(r.err, unit.workDir, root);
}

std::vector<CompilerWarning> warningsNewIn(const std::vector<CompilerWarning> &oldWarnings,
                                           const std::vector<CompilerWarning> &newWarnings,
                                           Diffs &diffs) {
  // The old version's warnings by file (as the new version names it), flag and message,
  // counted; and by old line and flag.
  std::map<std::tuple<std::string, std::string, std::string>, int> oldCount;
  std::set<std::tuple<std::string, unsigned, std::string>> oldAt;
  for (const CompilerWarning &w : oldWarnings) {
    ++oldCount[{diffs.counterpart(w.file, false), w.flag, w.message}];
    oldAt.insert({w.file, w.line, w.flag});
  }
  std::vector<CompilerWarning> out;
  std::set<std::tuple<std::string, unsigned, std::string, std::string>> seen;
  for (const CompilerWarning &w : newWarnings) {
    // A unit's header is compiled once per unit that includes it: one warning each.
    if (!seen.insert({w.file, w.line, w.flag, w.message}).second)
      continue;
    if (!inTree(w.file) || !diffs.changed(w.file, true, w.line))
      continue;
    // As many as the old version gave are not new (a warned line moved or copied)...
    int &left = oldCount[{w.file, w.flag, w.message}];
    if (left > 0) {
      --left;
      continue;
    }
    // ...nor one the old version gave at the line's counterpart (a renamed variable
    // changes the message, not the fault).
    std::string oldFile = diffs.counterpart(w.file, true);
    std::optional<unsigned> oldLine = diffs.of(w.file, true).oldLineOf(w.line);
    if (oldLine && oldAt.count({oldFile, *oldLine, w.flag}))
      continue;
    out.push_back(w);
  }
  return out;
}

NewWarnings findNewWarnings(const Version &oldV, const Version &newV, Diffs &diffs,
                            const Deadline &deadline, Stages &stages) {
  // The units first, on this thread (the diffs are a cache), then both versions' compiles
  // at once.
  std::vector<UnitSource> oldUnits = unitsWithChanges(oldV, diffs),
                          newUnits = unitsWithChanges(newV, diffs);
  stages.update(std::to_string(oldUnits.size()) + " old and " + std::to_string(newUnits.size()) +
                " new unit(s) with changed code");
  std::vector<CompilerWarning> oldW, newW;
  bothVersions(
      stages,
      [&](Stages &s) { oldW = versionWarnings(oldUnits, oldV.root, oldV.name, deadline, s); },
      [&](Stages &s) { newW = versionWarnings(newUnits, newV.root, newV.name, deadline, s); });
  NewWarnings out;
  for (const CompilerWarning &w : warningsNewIn(oldW, newW, diffs)) {
    std::string &said = out.byLine[{w.file, w.line}];
    said += (said.empty() ? "" : "; ") + w.message + " [-W" + w.flag + "]";
  }
  stages.update(std::to_string(out.byLine.size()) + " changed line(s) with a new warning");
  return out;
}

void applyNewWarnings(const NewWarnings &warnings, std::vector<DebugCandidate> &candidates) {
  for (DebugCandidate &c : candidates) {
    if (c.version != "new")
      continue;
    auto it = warnings.byLine.find({c.file, c.line});
    if (it != warnings.byLine.end())
      c.newWarning = it->second;
  }
}

} // namespace rootline::debug
