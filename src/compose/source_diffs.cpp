// Source lines and the diff between the versions, as the debugger's stages see them.
#include "compose/debug_stages.h"

#include "rootline/error.h"

#include <llvm/IR/Function.h>

#include <fstream>

namespace rootline::debug {

const TextDiff &Diffs::of(const std::string &rel, bool inNew) {
  std::string key = (inNew ? "n:" : "o:") + rel;
  auto it = cache_.find(key);
  if (it != cache_.end())
    return it->second;
  if (git_)
    return cache_[key] = inNew ? git_->ofNew(rel) : git_->ofOld(rel);
  std::string a = fs::exists(oldRoot_ / rel) ? readFile(oldRoot_ / rel) : "";
  std::string b = fs::exists(newRoot_ / rel) ? readFile(newRoot_ / rel) : "";
  return cache_[key] = diffTexts(a, b);
}

std::string Diffs::counterpart(const std::string &rel, bool inNew) const {
  if (git_)
    for (const auto &f : git_->files)
      if ((inNew ? f.newPath : f.oldPath) == rel)
        return inNew ? f.oldPath : f.newPath;
  return rel;
}

std::string sourceLine(const std::string &path, unsigned line) {
  std::ifstream in(path);
  std::string l;
  for (unsigned i = 1; std::getline(in, l); ++i)
    if (i == line) {
      while (!l.empty() && (l.front() == ' ' || l.front() == '\t'))
        l.erase(l.begin());
      return l;
    }
  return "";
}

DebugCandidate candidateAt(const Version &v, const llvm::Instruction *inst, const std::string &kind,
                           Diffs &diffs) {
  DebugCandidate c;
  SourceLocation loc = ModuleIndex::locationOf(inst);
  c.version = v.name;
  c.kind = kind;
  c.file = relativeTo(loc.path(), v.root);
  c.line = loc.line;
  c.function = inst->getFunction()->getName().str();
  c.source = sourceLine(loc.path(), loc.line);
  bool inNew = v.name == "new";
  const TextDiff &d = diffs.of(c.file, inNew);
  c.inChangedRegion = inNew ? d.changedInNew(c.line) : d.changedInOld(c.line);
  c.otherLine = inNew ? d.oldLineOf(c.line) : d.newLineOf(c.line);
  return c;
}

void presentOnNewSide(DebugCandidate &c, const fs::path &newRoot, Diffs &diffs) {
  std::string newFile = diffs.counterpart(c.file, false);
  if (c.version != "old" || !c.inChangedRegion || !fs::exists(newRoot / newFile))
    return;
  std::optional<unsigned> replacement = diffs.of(c.file, false).replacementOf(c.line);
  if (!replacement)
    return;
  c.reasons.push_back("found at the old version's line " + std::to_string(c.line) + " (`" +
                      c.source + "`), which the change replaced with this line");
  c.otherLine = c.line;
  c.version = "new";
  c.file = newFile;
  c.line = *replacement;
  c.source = sourceLine((newRoot / newFile).string(), c.line);
  c.kind = "changed code";
}

} // namespace rootline::debug
