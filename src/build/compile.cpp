// Compiling C sources to bitcode with clang-19 and linking them into one module.
#include "build/cache.h"
#include "build/include_stamps.h"
#include "build/language_flags.h"
#include "rootline/build.h"
#include "rootline/error.h"
#include "rootline/hash.h"
#include "rootline/process.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

namespace rootline {

std::string clangPath() {
  if (const char *c = getenv("ROOTLINE_CLANG"); c && *c)
    return c;
  return ROOTLINE_CLANG;
}

namespace {

// Flags that make the bitcode what the tracer and replay expect: unoptimised, with
// debug info and value names, and without optnone so analyses may run over it.
const std::vector<std::string> kBitcodeFlags = {"-O0", "-g", "-Xclang", "-disable-O0-optnone",
                                                "-fno-discard-value-names"};

std::string firstLine(const std::string &text) {
  auto nl = text.find('\n');
  return nl == std::string::npos ? text : text.substr(0, nl);
}

ProcessResult runClang(const TranslationUnit &unit, std::vector<std::string> args) {
  ProcessSpec spec;
  spec.argv = {clangPath()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.workDir = unit.workDir.string();
  spec.timeoutSeconds = kToolSeconds; // a hung compiler, not a slow build
  return runProcess(spec);
}

[[noreturn]] void failCompile(const TranslationUnit &unit, const ProcessResult &r) {
  std::string summary = toolFailure(r, "clang", firstLine(r.err));
  throw Error("cannot compile '" + unit.source.string() + "'" +
                  (summary.empty() ? "" : ": " + summary),
              ExitBadInput, r.err);
}

// Key: the preprocessed text (so header edits count) plus the flags and the compiler.
// Found again without preprocessing while the source and the headers it included keep
// their stamps (build/include_stamps.h): a warm cache costs a stat per input.
std::string unitKey(const TranslationUnit &unit) {
  Hasher direct;
  direct.add("rootline-tu-direct-v2").add(clangPath()).add(unit.source.string());
  direct.add(unit.workDir.string());
  for (const auto &f : unit.flags)
    direct.add(f);
  std::string directKey = direct.hex();
  if (auto known = recordedUnitKey(directKey))
    return *known;
  fs::path depfile = buildcache::unitBitcode(directKey);
  // Unique per call: two threads of one job may preprocess the same unit at once.
  depfile.replace_extension(".d" + uniqueTempSuffix());
  buildcache::prepare(depfile);
  std::vector<std::string> args = unit.flags;
  args.insert(args.end(),
              {"-E", "-g", "-MD", "-MF", depfile.string(), unit.source.string(), "-o", "-"});
  ProcessResult pre = runClang(unit, args);
  if (!pre.exitedWith(0))
    failCompile(unit, pre);
  Hasher h;
  h.add("rootline-tu-v2").add(clangPath()).add(unit.source.string());
  for (const auto &f : unit.flags)
    h.add(f);
  h.add(pre.out);
  std::string key = h.hex();
  std::error_code ec;
  if (fs::exists(depfile, ec)) {
    std::vector<std::string> inputs = depfileInputs(readFile(depfile), unit.workDir);
    fs::remove(depfile, ec);
    // Stamps are taken after the read: a file rewritten with the same size within one
    // clock tick of it would go unseen (as with make), which a build cannot cause.
    recordUnitKey(directKey, key, inputs);
  }
  return key;
}

void compileUnit(const TranslationUnit &unit, const fs::path &out) {
  std::vector<std::string> args = {"-c", "-emit-llvm"};
  args.insert(args.end(), kBitcodeFlags.begin(), kBitcodeFlags.end());
  args.insert(args.end(), lenientDiagnosticFlags().begin(), lenientDiagnosticFlags().end());
  args.insert(args.end(), unit.flags.begin(), unit.flags.end());
  std::vector<std::string> record = recordFlagsArgs(languageFlags(unit.flags));
  args.insert(args.end(), record.begin(), record.end());
  fs::path tmp = out;
  tmp += uniqueTempSuffix();
  args.insert(args.end(), {unit.source.string(), "-o", tmp.string()});
  ProcessResult r = runClang(unit, args);
  if (!r.exitedWith(0))
    failCompile(unit, r);
  fs::rename(tmp, out);
}

std::unique_ptr<llvm::Module> loadBitcode(const fs::path &path, llvm::LLVMContext &ctx) {
  auto buf = llvm::MemoryBuffer::getFile(path.string());
  if (!buf)
    throw Error("cannot read bitcode '" + path.string() + "'", ExitInternal);
  auto mod = llvm::parseBitcodeFile((*buf)->getMemBufferRef(), ctx);
  if (!mod) {
    std::string msg = llvm::toString(mod.takeError());
    throw Error("cannot parse bitcode '" + path.string() + "': " + msg, ExitInternal);
  }
  return std::move(*mod);
}

// `names` name each part in errors (its source file).
void linkUnits(const std::vector<fs::path> &parts, const std::vector<std::string> &names,
               const fs::path &out) {
  llvm::LLVMContext ctx;
  auto linked = std::make_unique<llvm::Module>("rootline-program", ctx);
  llvm::Linker linker(*linked);
  std::string diagnostics;
  ctx.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo *di, void *sink) {
        llvm::raw_string_ostream os(*static_cast<std::string *>(sink));
        llvm::DiagnosticPrinterRawOStream printer(os);
        di->print(printer);
        os << "\n";
      },
      &diagnostics);
  for (size_t i = 0; i < parts.size(); ++i) {
    auto mod = loadBitcode(parts[i], ctx);
    if (linker.linkInModule(std::move(mod)))
      throw Error("cannot link '" + names[i] + "' into the program: " + firstLine(diagnostics),
                  ExitBadInput, diagnostics);
  }
  std::string verifyErr;
  llvm::raw_string_ostream vs(verifyErr);
  if (llvm::verifyModule(*linked, &vs))
    throw Error("linked module is invalid: " + firstLine(verifyErr), ExitInternal, verifyErr);
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  llvm::WriteBitcodeToFile(*linked, os);
  os.flush();
  writeFileAtomic(out, bytes);
}

// The module of `parts` under `key`: from the cache, or linked now.
BuiltModule cachedModule(const std::vector<fs::path> &parts, const std::vector<std::string> &names,
                         const std::string &key) {
  BuiltModule result;
  result.unitBitcode = parts;
  result.key = key;
  result.bitcode = buildcache::moduleBitcode(key);
  result.cacheHit =
      buildcache::buildOnce(result.bitcode, [&] { linkUnits(parts, names, result.bitcode); });
  return result;
}

} // namespace

LoadedModule::LoadedModule() = default;
LoadedModule::LoadedModule(LoadedModule &&) noexcept = default;
LoadedModule &LoadedModule::operator=(LoadedModule &&o) noexcept {
  module.reset(); // the old module must die before its context
  context = std::move(o.context);
  module = std::move(o.module);
  return *this;
}

LoadedModule::~LoadedModule() {
  module.reset(); // the module must die before its context
  context.reset();
}

LoadedModule loadModule(const fs::path &bitcode) {
  LoadedModule loaded;
  loaded.context = std::make_unique<llvm::LLVMContext>();
  loaded.module = loadBitcode(bitcode, *loaded.context);
  return loaded;
}

BuiltModule buildModule(const BuildRecipe &recipe) {
  if (recipe.units.empty())
    throw Error("no source files to build");
  std::vector<fs::path> parts;
  Hasher moduleHash;
  moduleHash.add("rootline-module-v1");
  for (const auto &unit : recipe.units) {
    std::string key = unitKey(unit);
    fs::path bc = buildcache::unitBitcode(key);
    buildcache::buildOnce(bc, [&] { compileUnit(unit, bc); });
    parts.push_back(bc);
    moduleHash.add(key);
  }
  std::vector<std::string> names;
  for (const auto &unit : recipe.units)
    names.push_back(unit.source.string());
  return cachedModule(parts, names, moduleHash.hex());
}

BuiltModule linkBitcodeModule(const std::vector<fs::path> &units) {
  if (units.empty())
    throw Error("no bitcode to link");
  Hasher moduleHash;
  moduleHash.add("rootline-module-v1");
  for (const auto &bc : units) // content-addressed: the name is the content's hash
    moduleHash.add(bc.filename().string());
  std::vector<std::string> names;
  for (const auto &bc : units)
    names.push_back(bc.string());
  return cachedModule(units, names, moduleHash.hex());
}

namespace buildcache {
std::string translationUnitKey(const TranslationUnit &unit) { return unitKey(unit); }
} // namespace buildcache

} // namespace rootline
