// One bisection step: materialise a commit, build it natively (cached), run the test.
#include "rootline/bisect.h"

#include "rootline/error.h"
#include "rootline/hash.h"
#include "rootline/project.h"

#include <chrono>

namespace rootline {

namespace {

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string firstLine(const std::string &s) { return s.substr(0, s.find('\n')); }

// The verdict of a `git bisect run`-style exit status.
void judgeCommand(CommitVerdict &v, const ProcessResult &r) {
  v.run = {r.outcome(), r.out, r.seconds, r.err};
  if (r.timedOut) {
    v.verdict = Verdict::Bad;
    v.reason = "the test command timed out";
  } else if (r.signal != 0) {
    throw Error("the test command was killed by " + signalName(r.signal) + " at commit " +
                v.commit.shortHash);
  } else if (r.exitCode == 0) {
    v.verdict = Verdict::Good;
    v.reason = "the test command exited 0";
  } else if (r.exitCode == 125) {
    v.verdict = Verdict::Skip;
    v.reason = "the test command exited 125 (cannot test)";
  } else if (r.exitCode < 128) {
    v.verdict = Verdict::Bad;
    v.reason = "the test command exited " + std::to_string(r.exitCode);
  } else {
    throw Error("the test command exited " + std::to_string(r.exitCode) + " at commit " +
                v.commit.shortHash + " (128 and above abort a bisection)");
  }
}

void judgeOutput(CommitVerdict &v, const std::optional<ExpectedBehaviour> &expected) {
  const RunSummary &run = v.run;
  if (run.outcome == "timeout") {
    v.verdict = Verdict::Bad;
    v.reason = "the program did not finish within the timeout";
    return;
  }
  if (!expected) {
    bool crashed = run.outcome.rfind("signal", 0) == 0;
    v.verdict = crashed ? Verdict::Bad : Verdict::Good;
    v.reason = crashed ? "the program ended with " + run.outcome : "ran to " + run.outcome;
    return;
  }
  if (run.stdoutBytes != expected->stdoutBytes) {
    size_t i = 0;
    while (i < run.stdoutBytes.size() && i < expected->stdoutBytes.size() &&
           run.stdoutBytes[i] == expected->stdoutBytes[i])
      ++i;
    v.verdict = Verdict::Bad;
    v.reason = "stdout differs from the expected output from byte " + std::to_string(i);
  } else if (expected->outcome ? run.outcome != *expected->outcome
                               : run.outcome.rfind("signal", 0) == 0) {
    v.verdict = Verdict::Bad;
    v.reason = "ends with " + run.outcome +
               (expected->outcome ? " instead of " + *expected->outcome : std::string());
  } else {
    v.verdict = Verdict::Good;
    v.reason = "prints the expected output and ends with " + run.outcome;
  }
}

// Where a failed build of this tree with this recipe is remembered, so a second
// bisection skips it without compiling again (successful builds are cached by content).
fs::path failedBuildMark(const RecipeRequest &r, const fs::path &tree) {
  Hasher h;
  h.add("failed-build-v2").add(tree.string()).add(r.cflags).add(clangPath()).add(r.target);
  if (!r.recipeFile.empty() && fs::exists(r.recipeFile))
    h.add(readFile(r.recipeFile));
  for (const auto &s : r.sources)
    h.add(s);
  for (const auto &l : r.libs)
    h.add(l);
  return cacheRoot() / "failed-builds" / h.hex();
}

} // namespace

std::string verdictName(Verdict v) {
  return v == Verdict::Good ? "good" : v == Verdict::Bad ? "bad" : "skip";
}

std::string buildKind(const CommitVerdict &v) {
  return !v.built ? "none" : v.buildCached ? "cached" : "compiled";
}

CommitVerdict checkCommit(const Repository &repo, const std::string &hash, const CommitCheck &check,
                          const std::optional<ExpectedBehaviour> &expected) {
  auto start = std::chrono::steady_clock::now();
  CommitVerdict v;
  v.commit = repo.commit(hash);
  fs::path tree = repo.materialize(hash);
  if (check.testCommand) { // the project's own build and test
    v.built = true;
    BuiltProject project;
    try {
      ProjectBuildOptions build;
      build.command = check.projectBuild.value_or("");
      project = buildProject(tree, v.commit.shortHash, build);
      v.buildCached = project.cacheHit;
    } catch (const Error &e) {
      v.verdict = Verdict::Skip;
      v.reason = "does not build: " + firstLine(e.what());
      v.seconds = since(start);
      return v;
    }
    ScopedWorkDir work("check");
    TestCommand test{*check.testCommand, check.timeoutSeconds, std::nullopt};
    judgeCommand(v, runTestCommand(project, test, {}, work.path / "traces").result);
    v.seconds = since(start);
    return v;
  }
  std::optional<fs::path> program;
  if (!check.shellCommand || !check.recipe.sources.empty() || projectRecipeFile(tree) ||
      !check.recipe.recipeFile.empty()) {
    v.built = true;
    fs::path mark = failedBuildMark(check.recipe, tree);
    if (fs::exists(mark)) {
      v.buildCached = true;
      v.verdict = Verdict::Skip;
      v.reason = "does not build: " + readFile(mark);
      v.seconds = since(start);
      return v;
    }
    try {
      BuildRecipe recipe = resolveRecipeIn(check.recipe, tree);
      BuiltModule module = buildModule(recipe);
      BuiltExecutable exe = linkExecutable(module.bitcode, module.key, "native", {}, recipe.libs);
      v.buildCached = module.cacheHit && exe.cacheHit;
      program = exe.path;
    } catch (const Error &e) {
      v.verdict = Verdict::Skip;
      v.reason = "does not build: " + firstLine(e.what());
      std::error_code ec;
      fs::create_directories(mark.parent_path(), ec);
      writeFileAtomic(mark, firstLine(e.what()));
      v.seconds = since(start);
      return v;
    }
  }
  fs::path work = makeWorkDir("check");
  try {
    if (check.shellCommand) {
      fs::path copy = work / "tree"; // the command may write; the cached tree stays clean
      fs::copy(tree, copy, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
      ProcessSpec spec;
      spec.argv = {"/bin/sh", "-c", *check.shellCommand};
      spec.workDir = copy.string();
      spec.timeoutSeconds = check.timeoutSeconds;
      spec.extraEnv["ROOTLINE_COMMIT"] = hash;
      if (program)
        spec.extraEnv["ROOTLINE_PROGRAM"] = program->string();
      judgeCommand(v, runProcess(spec));
    } else {
      v.run = runInputNatively(*program, check.input, work, check.timeoutSeconds);
      judgeOutput(v, expected);
    }
  } catch (...) {
    std::error_code ec;
    fs::remove_all(work, ec);
    throw;
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  v.seconds = since(start);
  return v;
}

} // namespace rootline
