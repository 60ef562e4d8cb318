// The source files a version's program is compiled from, read from its debug info
// (src/compose/debug_stages.h): what a revert trial may touch.
#include "compose/debug_stages.h"

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Module.h>

namespace rootline::debug {

std::set<std::string> programSourceFiles(const Version &v) {
  std::set<std::string> out;
  auto add = [&](const llvm::DIFile *file) {
    if (!file)
      return;
    fs::path p(file->getFilename().str());
    if (p.is_relative() && !file->getDirectory().empty())
      p = fs::path(file->getDirectory().str()) / p;
    std::string rel = relativeTo(p.lexically_normal().string(), v.root);
    if (!fs::path(rel).is_absolute())
      out.insert(rel);
  };
  const llvm::Module &m = *v.module.module;
  for (const llvm::DICompileUnit *cu : m.debug_compile_units())
    add(cu->getFile());
  for (const llvm::Function &f : m)
    if (const llvm::DISubprogram *sp = f.getSubprogram())
      add(sp->getFile());
  return out;
}

} // namespace rootline::debug
