#include "rootline/analysed_version.h"

#include "rootline/error.h"

namespace rootline {

void buildAnalysedVersion(AnalysedVersion &v, const BuildRecipe &recipe) {
  try {
    v.program = buildTraced(recipe);
    v.native = buildNative(recipe, v.program.module);
  } catch (const Error &e) {
    throw Error("the " + v.name + " version does not build: " + e.what(), e.exitCode(), e.detail());
  }
  v.module = loadModule(v.program.module.bitcode);
  v.index = std::make_unique<ModuleIndex>(*v.module.module);
  v.analysis = std::make_unique<StaticAnalysis>(*v.module.module, *v.index);
}

void analyseBuiltVersion(AnalysedVersion &v, const BuiltVersion &built) {
  v.program = built.traced;
  v.native = built.native;
  v.module = loadModule(v.program.module.bitcode);
  v.index = std::make_unique<ModuleIndex>(*v.module.module);
  v.analysis = std::make_unique<StaticAnalysis>(*v.module.module, *v.index);
}

fs::path buildNativeVersion(const std::string &name, const BuildRecipe &recipe) {
  try {
    return buildNative(recipe, buildModule(recipe));
  } catch (const Error &e) {
    throw Error("the " + name + " version does not build: " + e.what(), e.exitCode(), e.detail());
  }
}

RunSummary runInputNatively(const fs::path &exe, const ProgramInput &input, const fs::path &dir,
                            double timeoutSeconds, uint64_t maxOutputBytes) {
  TestCase t = materialiseInput(input, dir);
  t.timeoutSeconds = timeoutSeconds;
  t.maxOutputBytes = maxOutputBytes;
  ProcessResult r = runNative(exe, t);
  return {r.outcome(), r.out, r.seconds};
}

std::string relativeTo(const std::string &path, const fs::path &root) {
  fs::path rel =
      fs::path(path).lexically_normal().lexically_relative(fs::absolute(root).lexically_normal());
  if (rel.empty() || *rel.begin() == "..")
    return path;
  return rel.string();
}

} // namespace rootline
