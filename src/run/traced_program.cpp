#include "rootline/error.h"
#include "rootline/fs.h"
#include "rootline/run.h"

#include <csignal>

namespace rootline {

fs::path instrumentedBitcode(const BuiltModule &module, bool &cacheHit); // src/instrument

fs::path runtimeLibrary() {
  if (const char *r = getenv("ROOTLINE_RUNTIME"); r && *r)
    return r;
  // Installed (`cmake --install`, the .deb): next to the binary, in ../lib/rootline.
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = self.parent_path().parent_path() / "lib" / "rootline" /
                         fs::path(ROOTLINE_RUNTIME_LIB).filename();
    if (fs::exists(installed, ec))
      return installed;
  }
  return ROOTLINE_RUNTIME_LIB; // the build tree
}

namespace {

TracedProgram instrumentAndLink(TracedProgram p, const std::vector<std::string> &libs,
                                const std::vector<std::string> &linkFlags) {
  bool instrHit = false;
  fs::path bc = instrumentedBitcode(p.module, instrHit);
  fs::path rt = runtimeLibrary();
  if (!fs::exists(rt))
    throw Error("rootline runtime library not found at '" + rt.string() + "'", ExitInternal);
  BuiltExecutable exe = linkExecutable(bc, p.module.key, "traced", {rt}, libs, linkFlags);
  p.instrumentedExe = exe.path;
  p.linkFlags = linkFlags;
  p.cacheHit = p.module.cacheHit && instrHit && exe.cacheHit;
  return p;
}

} // namespace

TracedProgram buildTraced(const BuildRecipe &recipe) {
  TracedProgram p;
  p.recipe = recipe;
  p.module = buildModule(recipe);
  return instrumentAndLink(std::move(p), recipe.libs, {});
}

TracedProgram buildTracedModule(const BuiltModule &module,
                                const std::vector<std::string> &linkFlags) {
  TracedProgram p;
  p.module = module;
  return instrumentAndLink(std::move(p), {}, linkFlags);
}

fs::path buildNative(const BuildRecipe &recipe, const BuiltModule &module) {
  return linkExecutable(module.bitcode, module.key, "native", {}, recipe.libs).path;
}

namespace {

ProcessSpec specFor(const fs::path &exe, const TestCase &test) {
  ProcessSpec spec;
  spec.argv = {test.argv0.empty() ? exe.string() : test.argv0};
  if (!test.argv0.empty())
    spec.program = exe.string();
  spec.argv.insert(spec.argv.end(), test.args.begin(), test.args.end());
  if (test.stdinFile)
    spec.stdinFile = test.stdinFile->string();
  spec.timeoutSeconds = test.timeoutSeconds;
  spec.maxOutputBytes = test.maxOutputBytes;
  if (test.workDir)
    spec.workDir = test.workDir->string();
  for (const auto &[name, value] : test.env)
    spec.extraEnv[name] = value;
  if (!test.outputFile.empty())
    spec.extraEnv["ROOTLINE_STDOUT_FILE"] = test.outputFile;
  return spec;
}

// The output file's text as the run's stdout (empty when the program did not write it).
void readOutputFile(const TestCase &test, ProcessResult &r) {
  if (test.outputFile.empty())
    return;
  fs::path file = test.workDir ? *test.workDir / test.outputFile : fs::path(test.outputFile);
  std::error_code ec;
  r.out = fs::is_regular_file(file, ec) ? readFile(file) : std::string();
}

} // namespace

TracedRun runTraced(const TracedProgram &program, const TestCase &test, const fs::path &traceFile,
                    bool timeoutBeforeTrace) {
  ProcessSpec spec = specFor(program.instrumentedExe, test);
  spec.extraEnv["ROOTLINE_TRACE"] = traceFile.string();
  spec.extraEnv["ROOTLINE_MAX_TRACE_BYTES"] = std::to_string(test.maxTraceBytes);
  spec.termGraceSeconds = 2; // lets the runtime flush the trace on SIGTERM
  if (!traceFile.parent_path().empty())
    fs::create_directories(traceFile.parent_path());
  // A trace left by an earlier run is removed first: it must not pass for this run's if
  // the program does not start, and truncating a large file in place is slow on ext4
  // (auto_da_alloc starts writing it back at close, in the traced program's time).
  std::error_code ignored;
  if (fs::is_regular_file(traceFile, ignored))
    fs::remove(traceFile, ignored);
  TracedRun run;
  run.process = runProcess(spec);
  readOutputFile(test, run.process);
  run.trace = traceFile;
  run.limitReached =
      !run.process.timedOut && run.process.signal == 0 && run.process.exitCode == 86 &&
      run.process.err.find("rootline-runtime: trace byte limit reached") != std::string::npos;
  if (!fs::exists(traceFile)) {
    if (run.process.timedOut && timeoutBeforeTrace) {
      run.untraced = true;
      return run;
    }
    throw Error(run.process.timedOut
                    ? "the traced program's time (" + std::to_string(test.timeoutSeconds) +
                          " s) ran out before it began its trace"
                    : "the traced program wrote no trace (did it start?)",
                ExitInternal);
  }
  return run;
}

ProcessResult runNative(const fs::path &exe, const TestCase &test) {
  ProcessResult r = runProcess(specFor(exe, test));
  readOutputFile(test, r);
  return r;
}

} // namespace rootline
