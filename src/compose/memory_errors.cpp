// The memory stage (docs/debug.md, "Memory errors"): what the replay-time checker found
// in the new run becomes findings a person reads like a sanitizer report, the changed
// line that made each possible becomes a candidate, and a sanitizer build of the new
// version confirms the first on the failing input.
#include "compose/debug_stages.h"

#include "rootline/error.h"

#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

namespace rootline::debug {

namespace {

constexpr size_t kMaxReported = 5;

struct ObjectInfo {
  std::string name; // "`buf`", "the block malloc allocated"
  std::string path; // its declaration or allocation
  unsigned line = 0;
};

std::string pathOf(const llvm::DIVariable *v) {
  if (!v || !v->getFile())
    return "";
  fs::path p(v->getFile()->getFilename().str());
  if (p.is_relative() && !v->getFile()->getDirectory().empty())
    p = fs::path(v->getFile()->getDirectory().str()) / p;
  return p.lexically_normal().string();
}

ObjectInfo describeObject(const llvm::Value *object) {
  ObjectInfo o;
  if (!object)
    return o;
  if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(object)) {
    auto *a = const_cast<llvm::AllocaInst *>(alloca);
    const llvm::DILocalVariable *var = nullptr;
    for (auto *d : llvm::findDbgDeclares(a))
      var = d->getVariable();
    for (auto *d : llvm::findDVRDeclares(a))
      var = d->getVariable();
    if (var) {
      o.name = "`" + var->getName().str() + "`";
      o.path = pathOf(var);
      o.line = var->getLine();
    } else {
      o.name = "a local of " + alloca->getFunction()->getName().str();
    }
    return o;
  }
  if (auto *gv = llvm::dyn_cast<llvm::GlobalVariable>(object)) {
    llvm::SmallVector<llvm::DIGlobalVariableExpression *, 1> exprs;
    gv->getDebugInfo(exprs);
    if (!exprs.empty()) {
      const llvm::DIGlobalVariable *var = exprs.front()->getVariable();
      o.name = "`" + var->getName().str() + "`";
      o.path = pathOf(var);
      o.line = var->getLine();
    } else {
      o.name =
          gv->getName().starts_with(".str") ? "a string literal" : "`" + gv->getName().str() + "`";
    }
    return o;
  }
  if (auto *call = llvm::dyn_cast<llvm::CallBase>(object)) {
    SourceLocation loc = ModuleIndex::locationOf(call);
    std::string fn = call->getCalledFunction() ? call->getCalledFunction()->getName().str() : "";
    o.name = "the block " + (fn.empty() ? std::string("allocated") : fn) + " returned";
    if (loc.valid()) {
      o.path = loc.path();
      o.line = loc.line;
    }
  }
  return o;
}

// A stack frame's source place, from a sanitizer's line "#3 0x55d1 in parse /src/x.c:7:3":
// the path and the line; none for a frame without one (a library's "(libc.so.6+0x2a1)").
std::optional<std::pair<std::string, std::string>> frameSource(std::string_view line) {
  std::vector<std::string_view> fields;
  for (size_t at = 0; at < line.size();) {
    size_t start = line.find_first_not_of(" \t", at);
    if (start == std::string_view::npos)
      break;
    size_t end = std::min(line.find_first_of(" \t", start), line.size());
    fields.push_back(line.substr(start, end - start));
    at = end;
  }
  auto digits = [](std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (fields.size() < 5 || fields[0].size() < 2 || fields[0][0] != '#' ||
      !digits(fields[0].substr(1)) || !fields[1].starts_with("0x") || fields[2] != "in" ||
      !fields[4].starts_with("/"))
    return std::nullopt;
  // The path ends at the first ':' followed by a line number.
  std::string_view place = fields[4];
  for (size_t colon = place.find(':'); colon != std::string_view::npos;
       colon = place.find(':', colon + 1)) {
    std::string_view rest = place.substr(colon + 1);
    std::string_view number = rest.substr(0, rest.find(':'));
    if (digits(number))
      return std::make_pair(std::string(place.substr(0, colon)), std::string(number));
  }
  return std::nullopt;
}

// "AddressSanitizer: stack-buffer-overflow at main.c:7", from a sanitizer's report on
// stderr: its kind and the first frame in the version's own sources.
std::string sanitizerVerdict(const std::string &err, const fs::path &root) {
  // The first "AddressSanitizer: kind" or "MemorySanitizer: kind" of the report.
  std::string verdict;
  size_t first = std::string::npos;
  for (std::string tool : {"AddressSanitizer: ", "MemorySanitizer: "})
    for (size_t at = err.find(tool); at != std::string::npos && at < first;
         at = err.find(tool, at + 1)) {
      size_t from = at + tool.size(), end = from;
      while (end < err.size() && ((err[end] >= 'a' && err[end] <= 'z') || err[end] == '-'))
        ++end;
      if (end > from) {
        verdict = tool + err.substr(from, end - from);
        first = at;
        break;
      }
    }
  if (verdict.empty())
    return "";
  fs::path top = fs::absolute(root).lexically_normal();
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);)
    if (auto frame = frameSource(line)) {
      std::string rel = relativeTo(frame->first, top);
      if (rel != frame->first)
        return verdict + " at " + rel + ":" + frame->second;
    }
  return verdict;
}

std::string confirmNatively(const DebugRequest &req, const Version &v, const MemoryError &e,
                            const fs::path &work, const Deadline &deadline) {
  std::string sanitizer = e.kind == "uninitialized-read" ? "memory" : "address";
  if (deadline.expired())
    return "not confirmed: the budget ended first";
  try {
    BuiltExecutable exe = linkSanitized(v.program.module, sanitizer, v.program.recipe.libs);
    TestCase t = materialiseInput(req.input, work);
    t.timeoutSeconds = deadline.clamp(std::max(req.timeoutSeconds * 3, 2.0), 0.5);
    ProcessSpec spec;
    spec.argv = {exe.path.string()};
    spec.argv.insert(spec.argv.end(), t.args.begin(), t.args.end());
    spec.stdinFile = t.stdinFile->string();
    spec.workDir = t.workDir->string();
    spec.timeoutSeconds = t.timeoutSeconds;
    spec.extraEnv["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0";
    spec.extraEnv["MSAN_OPTIONS"] = "abort_on_error=0";
    const char *symbolizer = "/usr/lib/llvm-19/bin/llvm-symbolizer";
    if (fs::exists(symbolizer)) {
      spec.extraEnv["ASAN_SYMBOLIZER_PATH"] = symbolizer;
      spec.extraEnv["MSAN_SYMBOLIZER_PATH"] = symbolizer;
    }
    ProcessResult r = runProcess(spec);
    std::string verdict = sanitizerVerdict(r.err, v.root);
    if (!verdict.empty())
      return verdict;
    return r.timedOut ? "not confirmed: the sanitizer build did not finish in time"
                      : "not confirmed: the " + sanitizer + " sanitizer build reported nothing";
  } catch (const Error &err) {
    return std::string("not confirmed: ") + err.what();
  }
}

std::string memoryErrorSentence(const MemoryError &e) {
  std::string s = e.file + ":" + std::to_string(e.line) + (e.write ? " writes " : " reads ") +
                  std::to_string(e.accessSize) + " byte(s)";
  if (e.kind == "uninitialized-read")
    s += " that were never written, of " + e.object;
  else if (e.kind == "heap-use-after-free")
    s += " at offset " + std::to_string(e.offset) + " of " + e.object + " after it was freed" +
         (e.freedAt.empty() ? "" : " at " + e.freedAt);
  else
    s += " at offset " + std::to_string(e.offset) + " of " + e.object + " (" +
         std::to_string(e.objectSize) + " bytes)";
  if (e.objectLine)
    s += ", declared or allocated at " + e.objectFile + ":" + std::to_string(e.objectLine);
  s += ": " + e.kind;
  return s;
}

} // namespace

std::vector<DebugCandidate> diagnoseMemoryErrors(const DebugRequest &req, const Version &oldV,
                                                 const Version &newV, Diffs &diffs,
                                                 const fs::path &work, const Deadline &deadline,
                                                 DebugReport &report, Stages &stages) {
  std::vector<DebugCandidate> out;
  if (newV.memory.empty())
    return out;
  // The old run's findings, by kind and line: those the change did not bring.
  std::set<std::pair<std::string, std::string>> inOld;
  for (const MemoryFinding &f : oldV.memory) {
    SourceLocation l = ModuleIndex::locationOf(f.access);
    inOld.insert({f.kind, relativeTo(l.path(), oldV.root) + ":" + std::to_string(l.line)});
  }
  uint64_t crash = newV.trace.dynamic.crashInstance;
  std::vector<const MemoryFinding *> chosen;
  std::set<std::pair<std::string, std::string>> seen;
  for (int pass = 0; pass < 2; ++pass)
    for (const MemoryFinding &f : newV.memory) {
      bool reaches = newV.slice.contains(f.instance) || f.instance == crash;
      if (reaches != (pass == 0) || chosen.size() >= kMaxReported)
        continue;
      SourceLocation l = ModuleIndex::locationOf(f.access);
      if (!l.valid())
        continue;
      std::string rel = relativeTo(l.path(), newV.root);
      std::optional<unsigned> oldLine = diffs.of(rel, true).oldLineOf(l.line);
      std::string oldAt = diffs.counterpart(rel, true) + ":" + std::to_string(oldLine.value_or(0));
      if (oldLine && inOld.count({f.kind, oldAt}))
        continue; // the old version does the same: not what the change broke
      if (seen.insert({f.kind, rel + ":" + std::to_string(l.line)}).second)
        chosen.push_back(&f);
    }
  for (const MemoryFinding *f : chosen) {
    MemoryError e;
    SourceLocation l = ModuleIndex::locationOf(f->access);
    e.kind = f->kind;
    e.file = relativeTo(l.path(), newV.root);
    e.line = l.line;
    e.write = f->write;
    e.accessSize = f->accessSize;
    e.offset = f->offset;
    e.objectSize = f->objectSize;
    ObjectInfo o = describeObject(f->object);
    e.object = o.name.empty() ? "an object" : o.name;
    if (o.line) {
      e.objectFile = relativeTo(o.path, newV.root);
      e.objectLine = o.line;
    }
    if (f->freeInstance != kNoDef && f->freeInstance < newV.trace.dynamic.records.size()) {
      SourceLocation fl = ModuleIndex::locationOf(
          newV.index->instruction(newV.trace.dynamic.records.id(f->freeInstance)));
      if (fl.valid())
        e.freedAt = relativeTo(fl.path(), newV.root) + ":" + std::to_string(fl.line);
    }
    e.reachesFailure = newV.slice.contains(f->instance) || f->instance == crash;
    // The changed line that made it possible: the object's declaration or allocation,
    // when the change touched it; else the nearest changed line in the access's slice
    // (the index computation, a loop bound, a free moved earlier).
    std::optional<DebugCandidate> cause;
    if (e.objectLine && diffs.changed(e.objectFile, true, e.objectLine)) {
      DebugCandidate c;
      c.version = "new";
      c.file = e.objectFile;
      c.line = e.objectLine;
      c.source = sourceLine((newV.root / e.objectFile).string(), e.objectLine);
      c.inChangedRegion = true;
      e.cause = "the change touched its declaration or allocation";
      cause = c;
    } else if (!deadline.expired()) {
      Slice s = computeSlice(newV.trace.dynamic, *newV.index, *newV.analysis,
                             {{f->instance, true, {}, false}}, true, deadline);
      std::vector<DebugCandidate> lines = changedLinesIn(newV, s, "memory error", diffs);
      auto nearest = std::min_element(lines.begin(), lines.end(),
                                      [](auto &a, auto &b) { return a.distance < b.distance; });
      if (nearest != lines.end()) {
        e.cause = "the nearest changed line the access depends on";
        cause = *nearest;
      }
    }
    e.text = memoryErrorSentence(e);
    if (cause) {
      e.causeFile = cause->file;
      e.causeLine = cause->line;
      cause->kind = "memory error";
      cause->memoryError = e.text + "; " + e.cause;
      bool atAccess = cause->file == e.file && cause->line == e.line;
      bool atObject = e.objectLine && cause->file == e.objectFile && cause->line == e.objectLine;
      cause->memoryFaultOnLine = atAccess || atObject;
      out.push_back(*cause);
    }
    report.memoryErrors.push_back(e);
  }
  if (!report.memoryErrors.empty()) {
    MemoryError &first = report.memoryErrors.front();
    first.confirmed = confirmNatively(req, newV, first, work / "sanitized", deadline);
    bool confirmed = first.confirmed.rfind("not", 0) != 0;
    bool refuted = first.confirmed.find("sanitizer build reported nothing") != std::string::npos;
    // The sanitizer build ran the whole test: when it reported nothing, it refutes every
    // finding of the run, not only the first. When it confirmed the first, it stopped
    // there: the later findings are not checked.
    for (MemoryError &e : report.memoryErrors)
      if (&e != &first)
        e.confirmed = refuted     ? first.confirmed
                      : confirmed ? "not checked: the sanitizer build stops at its first report"
                                  : e.confirmed;
    for (auto &c : out) {
      bool isFirst = c.memoryError.rfind(first.text, 0) == 0;
      if (confirmed && isFirst) {
        c.memoryError += " (" + first.confirmed + ")";
        c.memoryCheck = "confirmed";
      } else if (refuted) {
        // The replay's finding stands unconfirmed: it ranks below lines with evidence.
        c.memoryError += " (unconfirmed: the sanitizer build reported nothing)";
        c.memoryCheck = "unconfirmed";
      } else if (confirmed) {
        c.memoryError += " (not checked: the sanitizer build stops at its first report, " +
                         first.file + ":" + std::to_string(first.line) + ")";
        c.memoryCheck = "unchecked";
      }
    }
    stages.note(std::to_string(report.memoryErrors.size()) + " memory error(s) in the new run");
  }
  return out;
}

} // namespace rootline::debug
