// Unit mode's harness (docs/explore.md, "Unit mode"): the function and its file found in
// the program's module, its parameters, its file's globals and the functions it may
// call; the driver written (driver_writer.h) and put in the place of the function's file
// in the program's recipe.
#include "rootline/unit_harness.h"

#include "driver_writer.h"

#include "rootline/error.h"
#include "support/debug_types.h"

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <set>

namespace rootline {

namespace {

using unit_driver::NamedTypes;
namespace dw = llvm::dwarf;

fs::path normal(const fs::path &p) { return fs::absolute(p).lexically_normal(); }

fs::path fileOf(const llvm::DIFile *f) {
  fs::path name = f->getFilename().str();
  return normal(name.is_absolute() ? name : fs::path(f->getDirectory().str()) / name);
}

// The function to explore, defined and with debug information.
const llvm::Function &functionToExplore(const llvm::Module &module, const std::string &name) {
  const llvm::Function *fn = module.getFunction(name);
  if (!fn || fn->isDeclaration())
    throw Error("no function '" + name + "' is defined in the program", ExitBadInput);
  const llvm::DISubprogram *sp = fn->getSubprogram();
  if (!sp || !sp->getType())
    throw Error("function '" + name + "' has no debug information", ExitBadInput);
  return *fn;
}

// The program's unit whose source is `defining`: the driver takes its place.
const TranslationUnit &definingUnit(const BuildRecipe &program, const fs::path &defining,
                                    const std::string &function) {
  const TranslationUnit *unit = nullptr;
  for (const auto &u : program.units)
    if (normal(u.source) == defining)
      unit = &u;
  if (!unit)
    throw Error("function '" + function + "' is defined in '" + defining.string() +
                    "', which is not one of the program's sources (a header?)",
                ExitBadInput);
  return *unit;
}

// The function's parameters, named as the source names them (p1, p2, ... when it does
// not); a variadic function's named ones only.
NamedTypes parametersOf(const llvm::Function &fn, std::vector<std::string> &notes) {
  NamedTypes params;
  auto names = parameterNames(fn);
  auto types = fn.getSubprogram()->getType()->getTypeArray();
  for (size_t i = 1; i < types.size(); ++i) {
    if (!types[i]) {
      notes.push_back(fn.getName().str() + " is variadic: only its named parameters are built");
      break;
    }
    bool named = i - 1 < names.size() && !names[i - 1].empty();
    params.push_back({named ? names[i - 1] : "p" + std::to_string(i), types[i]});
  }
  return params;
}

// The globals of the function's file (static or not), except constants.
NamedTypes globalsOf(const llvm::Module &module, const fs::path &defining) {
  NamedTypes globals;
  for (const llvm::GlobalVariable &gv : module.globals()) {
    if (gv.isDeclaration() || gv.isConstant() || gv.getName().starts_with("__") ||
        gv.getName().starts_with("."))
      continue;
    llvm::SmallVector<llvm::DIGlobalVariableExpression *, 1> infos;
    gv.getDebugInfo(infos);
    for (auto *info : infos) {
      const llvm::DIGlobalVariable *v = info->getVariable();
      if (!v || !llvm::isa_and_nonnull<llvm::DICompileUnit>(v->getScope()) || !v->getFile() ||
          fileOf(v->getFile()) != defining)
        continue; // a function's static local, or another file's
      const llvm::DIType *t = v->getType();
      if (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t);
          d && d->getTag() == dw::DW_TAG_const_type)
        continue;
      globals.push_back({v->getName().str(), t});
    }
  }
  return globals;
}

// The function and its callees, transitively (direct calls to defined functions; an
// indirect call may reach any address-taken function of the same type).
std::vector<std::string> reachableFunctions(const llvm::Function &fn, const llvm::Module &module) {
  std::vector<std::string> reached;
  std::vector<const llvm::Function *> work{&fn};
  std::set<const llvm::Function *> seen{&fn};
  while (!work.empty()) {
    const llvm::Function *f = work.back();
    work.pop_back();
    reached.push_back(f->getName().str());
    for (const llvm::Instruction &inst : llvm::instructions(*f))
      if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
        const llvm::Function *callee = call->getCalledFunction();
        if (callee && !callee->isDeclaration() && seen.insert(callee).second)
          work.push_back(callee);
        if (!callee && !call->isInlineAsm())
          for (const llvm::Function &g : module)
            if (!g.isDeclaration() && g.hasAddressTaken() && g.getName() != "main" &&
                g.getFunctionType() == call->getFunctionType() && seen.insert(&g).second)
              work.push_back(&g);
      }
  }
  return reached;
}

// The driver takes the defining unit's place (with its flags and directory); every
// other unit's main is renamed, as the driver renames the defining file's.
BuildRecipe driverRecipe(const BuildRecipe &program, const fs::path &definingSource,
                         const fs::path &driver, const std::string &function) {
  BuildRecipe recipe = program;
  for (auto &u : recipe.units) {
    if (u.source == definingSource)
      u.source = driver;
    else
      u.flags.push_back("-Dmain=rootline_program_main");
  }
  recipe.origin = program.origin + ", unit driver for " + function;
  return recipe;
}

// Enough numbers for every shape within the bounds: a value of 1 everywhere (fresh
// objects, one-element strings and arrays); numbers past what a run reads are unused.
std::string seedNumbers() {
  std::string seed;
  for (int i = 0; i < 512; ++i)
    seed += (i % 16 == 15) ? "1\n" : "1 ";
  return seed;
}

} // namespace

UnitHarness makeUnitHarness(const BuildRecipe &program, const UnitOptions &options,
                            const fs::path &dir) {
  if (options.function.empty() || options.function == "main")
    throw Error("--function names the function to explore; for main, leave it out", ExitBadInput);
  BuiltModule built = buildModule(program);
  LoadedModule loaded = loadModule(built.bitcode);
  const llvm::Function &fn = functionToExplore(*loaded.module, options.function);
  UnitHarness h;
  h.function = options.function;
  h.options = options;
  h.program = program;
  fs::path defining = fileOf(fn.getSubprogram()->getFile());
  const TranslationUnit &unit = definingUnit(program, defining, options.function);
  h.definingSource = unit.source;
  NamedTypes params = parametersOf(fn, h.notes);
  NamedTypes globals = globalsOf(*loaded.module, defining);
  h.covered = reachableFunctions(fn, *loaded.module);

  // The units' own modules, for the struct names the linker merged (void_payloads.h).
  std::vector<LoadedModule> unitModules;
  std::vector<const llvm::Module *> units;
  const llvm::Module *definingModule = nullptr;
  for (size_t i = 0; i < program.units.size(); ++i) {
    unitModules.push_back(loadModule(built.unitBitcode[i]));
    units.push_back(unitModules.back().module.get());
    if (&program.units[i] == &unit)
      definingModule = units.back();
  }
  unit_driver::DriverWriter writer(*loaded.module, fn, options, h.definingSource, units,
                                   *definingModule);
  // A global that holds pointers (allocator hooks, a list head) keeps its initial value:
  // the program set it up, and the function relies on it.
  std::erase_if(globals, [&](const auto &g) {
    if (unit_driver::holdsOnlyValues(g.second))
      return false;
    h.notes.push_back("global " + g.first + " holds pointers: it keeps its initial value");
    return true;
  });
  h.driverText = writer.write(params, globals, h.inputs);
  for (const auto &n : writer.notes())
    h.notes.push_back(n);
  fs::create_directories(dir);
  h.driver = dir / "driver.c";
  writeFileAtomic(h.driver, h.driverText);
  h.recipe = driverRecipe(program, unit.source, h.driver, options.function);
  h.seed.stdinBytes = seedNumbers();
  return h;
}

} // namespace rootline
