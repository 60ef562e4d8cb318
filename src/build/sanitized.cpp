// A module built natively under a sanitizer, to confirm a memory error replay found.
// The module was compiled without sanitizer attributes, which the sanitizer passes
// need on every function they instrument; they are added to a copy of the module.
#include "build/cache.h"
#include "rootline/build.h"
#include "rootline/error.h"
#include "rootline/fs.h"

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

namespace rootline {

BuiltExecutable linkSanitized(const BuiltModule &module, const std::string &sanitizer,
                              const std::vector<std::string> &libs) {
  if (sanitizer != "address" && sanitizer != "memory")
    throw Error("unknown sanitizer '" + sanitizer + "'", ExitInternal);
  fs::path bitcode = cacheRoot() / "build" / "sanitized" / (module.key + "-" + sanitizer + ".bc");
  if (!fs::exists(bitcode)) {
    fs::create_directories(bitcode.parent_path());
    LoadedModule loaded = loadModule(module.bitcode);
    auto kind = sanitizer == "address" ? llvm::Attribute::SanitizeAddress
                                       : llvm::Attribute::SanitizeMemory;
    for (llvm::Function &fn : *loaded.module)
      if (!fn.isDeclaration())
        fn.addFnAttr(kind);
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    llvm::WriteBitcodeToFile(*loaded.module, os);
    os.flush();
    writeFileAtomic(bitcode, bytes);
  }
  return linkExecutable(bitcode, module.key, "sanitize-" + sanitizer, {}, libs,
                        {"-fsanitize=" + sanitizer});
}

} // namespace rootline
