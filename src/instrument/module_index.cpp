#include "rootline/module_index.h"

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/Support/raw_ostream.h>

namespace rootline {

std::string SourceLocation::str() const { return file + ":" + std::to_string(line); }

std::string SourceLocation::path() const {
  if (file.empty() || file[0] == '/' || directory.empty())
    return file;
  return directory + "/" + file;
}

ModuleIndex::ModuleIndex(const llvm::Module &module) {
  for (const llvm::Function &fn : module) {
    fnIndex_[&fn] = static_cast<uint32_t>(fns_.size());
    fns_.push_back(&fn);
    for (const llvm::BasicBlock &bb : fn)
      for (const llvm::Instruction &inst : bb) {
        instId_[&inst] = static_cast<uint32_t>(insts_.size());
        insts_.push_back(&inst);
        if (isReplayModelledLocal(&inst))
          modelledLocals_.insert(llvm::cast<llvm::AllocaInst>(&inst));
      }
  }
  for (const llvm::GlobalVariable &gv : module.globals()) {
    gvIndex_[&gv] = static_cast<uint32_t>(gvs_.size());
    gvs_.push_back(&gv);
  }
}

SourceLocation ModuleIndex::locationOf(const llvm::Instruction *inst) {
  SourceLocation loc;
  if (!inst)
    return loc;
  const llvm::DebugLoc &dl = inst->getDebugLoc();
  if (!dl)
    return loc;
  auto *scope = llvm::cast<llvm::DIScope>(dl.getScope());
  loc.file = scope->getFilename().str();
  loc.directory = scope->getDirectory().str();
  loc.line = dl.getLine();
  loc.column = dl.getCol();
  return loc;
}

std::string ModuleIndex::describe(const llvm::Instruction *inst) {
  if (!inst)
    return "<no instruction>";
  std::string text;
  llvm::raw_string_ostream os(text);
  inst->print(os);
  os.flush();
  auto bang = text.find(", !dbg");
  if (bang != std::string::npos)
    text.resize(bang);
  while (!text.empty() && text.front() == ' ')
    text.erase(text.begin());
  SourceLocation loc = locationOf(inst);
  std::string where = loc.valid() ? " (" + loc.str() + ")" : "";
  return inst->getFunction()->getName().str() + ": `" + text + "`" + where;
}

} // namespace rootline
