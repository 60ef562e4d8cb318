// Instrumented bitcode, cached next to the module it came from.
#include "build/cache.h"
#include "rootline/build.h"
#include "rootline/error.h"
#include "rootline/fs.h"
#include "rootline/hash.h"
#include "rootline/module_index.h"

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

namespace rootline {

// Bumped whenever the instrumentation changes what it emits.
static const char *kInstrumentVersion = "instrument-v10";

// The wrapped libc functions decide which calls the pass redirects, so they are part
// of what an instrumented module is.
static std::string wrappedFunctionsKey() {
  std::string names;
#define RL_WRAP(n) names += #n ",";
#include "rl_wrapped.def"
#undef RL_WRAP
  return sha256Hex(names).substr(0, 12);
}

// The module instrumented, verified and written to `out` (atomically).
static void writeInstrumented(const BuiltModule &module, const fs::path &out) {
  LoadedModule loaded = loadModule(module.bitcode);
  instrumentModule(*loaded.module, module.key);
  std::string err;
  llvm::raw_string_ostream es(err);
  if (llvm::verifyModule(*loaded.module, &es))
    throw Error("instrumented module is invalid: " + err.substr(0, err.find('\n')), ExitInternal,
                err);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  llvm::WriteBitcodeToFile(*loaded.module, os);
  os.flush();
  writeFileAtomic(out, bytes);
}

fs::path instrumentedBitcode(const BuiltModule &module, bool &cacheHit) {
  fs::path out = cacheRoot() / "build" / "instrumented" /
                 (module.key + "-" + kInstrumentVersion + "-" + wrappedFunctionsKey() + ".bc");
  cacheHit = buildcache::buildOnce(out, [&] { writeInstrumented(module, out); });
  return out;
}

} // namespace rootline
