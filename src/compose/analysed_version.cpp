#include "rootline/analysed_version.h"
#include "rootline/fs.h"

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

bool behaveAlike(const RunSummary &a, const RunSummary &b, bool stderrCounts) {
  return a.stdoutBytes == b.stdoutBytes && a.outcome == b.outcome &&
         (!stderrCounts || a.stderrBytes == b.stderrBytes);
}

RunSummary runInputNatively(const fs::path &exe, const ProgramInput &input, const fs::path &dir,
                            double timeoutSeconds, uint64_t maxOutputBytes) {
  TestCase t = materialiseInput(input, dir);
  t.timeoutSeconds = timeoutSeconds;
  t.maxOutputBytes = maxOutputBytes;
  ProcessResult r = runNative(exe, t);
  return {r.outcome(), r.out, r.seconds, r.err};
}

std::string relativeTo(const std::string &path, const fs::path &root) {
  fs::path rel =
      fs::path(path).lexically_normal().lexically_relative(fs::absolute(root).lexically_normal());
  if (!rel.empty() && *rel.begin() != "..")
    return rel.string();
  // A file of a tree rootline laid out under its cache (a commit's tree, the project's
  // work path or built home, a revert variant) is named as in the repository: a report
  // never shows cache paths.
  if (fs::path(path).is_relative())
    return fs::path(path).lexically_normal().string(); // "./rexp0.c" is "rexp0.c"
  fs::path inCache = fs::path(path).lexically_normal().lexically_relative(
      fs::absolute(cacheRoot()).lexically_normal());
  if (inCache.empty() || *inCache.begin() == "..")
    return path;
  std::vector<std::string> parts;
  for (const auto &p : inCache)
    parts.push_back(p.string());
  size_t skip = 0;
  if (parts.size() > 2 && (parts[0] == "trees" || parts[0] == "variants"))
    skip = 2; // trees/<id>/…, variants/<hash>/…
  else if (parts.size() > 2 && parts[0] == "work" && parts[1] == "tree")
    skip = 2; // work/tree/…
  else if (parts.size() > 3 && parts[0] == "project" && parts[2] == "tree")
    skip = 3; // project/<key>/tree/…
  if (!skip)
    return path;
  fs::path out;
  for (size_t i = skip; i < parts.size(); ++i)
    out /= parts[i];
  return out.string();
}

} // namespace rootline
