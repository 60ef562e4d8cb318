// rootline debug with --build / --test: the project's own build and test command
// (docs/project.md). Both versions are built by the project's build; the test runs on
// each, natively and then with the project's programs traced; the failing process is
// debugged like a one-process test, from the inputs it got.
#include "cli/project_debug.h"

#include "rootline/error.h"
#include "rootline/project.h"
#include "rootline/text_diff.h"
#include "rootline/tree_compare.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <tuple>

namespace rootline::cli {

void addProjectOptions(CLI::App &cmd, std::string &build, std::string &test,
                       const std::string &testHelp) {
  cmd.add_option("--build", build,
                 "Build each version with the project's own build command, in a private copy "
                 "under the cache (default: detected: ./configure && make, autoreconf, CMake, "
                 "Meson or make; docs/project.md)");
  cmd.add_option("--test", test,
                 "The project's test as a shell command, run from the top of the built tree "
                 "(exit 0 passes, 125 cannot test); " +
                     testHelp);
}

BuiltVersion builtVersion(const BuiltProject &project, const ProjectProgram &program) {
  ProjectExecutables e = programExecutables(project, program);
  return {e.traced, e.native};
}

namespace {

// The project's programs traced for the test's traced runs: those the native runs of
// the test executed (each traced build costs a link), or all when that is not known.
std::vector<std::pair<std::string, fs::path>>
tracedPrograms(const BuiltProject &p, const std::optional<std::set<std::string>> &ran) {
  std::vector<std::pair<std::string, fs::path>> out;
  for (const auto &prog : p.programs)
    if (!ran || ran->count(prog.path))
      out.emplace_back(prog.path, programExecutables(p, prog).traced.instrumentedExe);
  return out;
}

// Projects of at most this many programs are traced before any native run: building a
// traced executable of a program the test does not run costs less than a native run of
// both versions (a `make check` of hundreds of processes) for so few.
constexpr size_t kTracedFirstPrograms = 4;

// Revert trials rebuild the new version incrementally with some hunks reverted.
std::function<fs::path(const std::map<std::string, std::string> &)>
variantBuilder(const BuiltProject &project, const std::string &programPath) {
  return [project, programPath](const std::map<std::string, std::string> &files) {
    return buildProjectVariant(project, files, programPath, 600);
  };
}

// A passing trial confirmed by the whole test command on the variant's tree (natively).
std::function<std::string(const std::map<std::string, std::string> &, double)>
wholeTestRunner(const BuiltProject &project, const TestCommand &test) {
  return [project, test](const std::map<std::string, std::string> &files, double timeout) {
    TestCommand bounded = test;
    bounded.timeoutSeconds = std::min(test.timeoutSeconds, timeout);
    BuiltProject variant;
    try {
      variant = buildProjectVariantTree(project, files, 600);
    } catch (const Error &) {
      return std::string(); // the trial built it: only a full disk gets here
    }
    ScopedWorkDir work("whole-test");
    TestCommandRun run = runTestCommand(variant, bounded, {}, work.path / "unused");
    if (run.cannotTest() || run.result.timedOut)
      return std::string();
    return std::string(run.passed() ? "passes" : "fails");
  };
}

std::string statusText(const ProcessResult &r) { return r.outcome(); }

// Where a run alone lays out a file the test had at an absolute path in a temporary
// directory: the same path without its leading /, inside the run's directory.
std::string relocatedName(const std::string &path) {
  return fs::path(path).relative_path().string();
}

bool inTempDir(const std::string &path) {
  return path.starts_with("/tmp/") || path.starts_with("/var/tmp/");
}

std::string joined(const std::set<std::string> &names) {
  std::string out;
  for (const std::string &n : names)
    out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The inputs the process got, from the copies its runtime made: stdin, its arguments,
// the files it opened for reading by a relative name, and the files its arguments named.
ProgramInput carvedInput(const TestCommandRun &run, size_t index, const ProcessBehaviour &b,
                         std::vector<std::string> &notes) {
  ProgramInput in;
  const TraceProcess &p = run.processes[index].header.process;
  // Its files are named by its start number, not by its place in the list: a process
  // killed before its first write left an empty trace, which the list leaves out.
  fs::path base = run.traceDir / ("p" + std::to_string(run.processes[index].number()));
  std::error_code ec;
  if (fs::exists(base.string() + ".stdin", ec))
    in.stdinBytes = readFile(base.string() + ".stdin");
  in.args.assign(p.argv.begin() + (p.argv.empty() ? 0 : 1), p.argv.end());
  if (!p.argv.empty()) // the name the test ran it under, for both versions
    in.argv0 = p.argv[0];
  // Arguments naming files in a temporary directory (the runtime copied them: a test's
  // `mktemp -d` files, gone when the test ends) are laid out inside the run's directory
  // and the argument names them there.
  std::set<std::string> relocatedArgs;
  for (size_t i = 1; i < p.argv.size(); ++i) {
    fs::path copy = base.string() + ".arg" + std::to_string(i);
    if (fs::path(p.argv[i]).is_absolute() && fs::exists(copy, ec)) {
      std::string here = relocatedName(p.argv[i]);
      in.files[here] = readFile(copy);
      in.args[i - 1] = here;
      relocatedArgs.insert(p.argv[i]);
    }
  }
  if (!relocatedArgs.empty())
    notes.push_back(
        "the failing process's argument(s) " + joined(relocatedArgs) +
        " name files in a temporary directory (/tmp, /var/tmp or $TMPDIR): its runs alone get them "
        "inside their own directory, named without the leading /");
  for (const auto &[id, name] : b.opened) {
    fs::path copy = base.string() + ".in" + std::to_string(id);
    if (relocatedArgs.count(name))
      continue;
    if (fs::path(name).is_absolute()) {
      notes.push_back("the failing process opened " + name +
                      " by an absolute path: alternative inputs keep that file as it is");
      continue;
    }
    if (fs::exists(copy, ec))
      in.files[name] = readFile(copy);
  }
  // The variables the test set for it: those its environment holds otherwise than
  // rootline's own, but for what the test runner sets itself (traces, a private TMPDIR)
  // and what every shell sets.
  if (fs::exists(base.string() + ".env", ec)) {
    static const std::set<std::string> kRunners = {"TMPDIR", "PWD", "OLDPWD", "SHLVL", "_"};
    std::string text = readFile(base.string() + ".env");
    for (size_t start = 0; start < text.size();) {
      size_t end = text.find('\0', start);
      std::string entry = text.substr(start, end == std::string::npos ? end : end - start);
      start = end == std::string::npos ? text.size() : end + 1;
      size_t eq = entry.find('=');
      if (eq == std::string::npos || eq == 0)
        continue;
      std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
      if (kRunners.count(name) || name.starts_with("ROOTLINE_"))
        continue;
      const char *own = getenv(name.c_str());
      if (!own || value != own)
        in.env[name] = value;
    }
  }
  // Arguments that named files when it started, which it may not open itself (a program
  // it runs reads them): the copies its runtime made then.
  for (size_t i = 1; i < p.argv.size(); ++i) {
    fs::path copy = base.string() + ".arg" + std::to_string(i);
    if (!relocatedArgs.count(p.argv[i]) && !in.files.count(p.argv[i]) && fs::exists(copy, ec))
      in.files[p.argv[i]] = readFile(copy);
  }
  return in;
}

// The change between two source trees (not the built ones: generated files such as
// config.h are no part of it): each C source or header whose text differs.
SourceDiff sourceTreeDiff(const fs::path &oldTree, const fs::path &newTree) {
  static const std::set<std::string> kSources = {".c", ".h", ".inc", ".def", ".y", ".l"};
  SourceDiff out;
  for (const std::string &rel : changedTreeFiles(oldTree, newTree, kSources, 200000))
    out.files.push_back({rel, rel, diffTexts(readFile(oldTree / rel), readFile(newTree / rel))});
  return out;
}

// The processes of the test spectrum (docs/debug.md, "Test spectrum"): each run's
// processes of the debugged program that started at its `main` (a forked child's trace
// continues its parent's), with a counterpart in the other run, marked alike unless
// their behaviour differs. One that differs only by text the change edited (a version
// banner) is neither alike nor failing, and is left out.
struct SpectrumProcesses {
  std::vector<DebugRequest::TestProcess> oldSide, newSide;
  std::vector<size_t> newIndexes; // each newSide process's place in the new run
};
SpectrumProcesses spectrumProcesses(const BuiltProject &oldB, const BuiltProject &newB,
                                    const TestCommandRun &oldRun, const TestCommandRun &newRun,
                                    const std::vector<FailingProcess> &differing,
                                    const ProjectProgram &oldProg, const ProjectProgram &newProg) {
  std::vector<std::optional<size_t>> counterpart =
      processCounterparts(oldRun.processes, newRun.processes);
  std::map<size_t, bool> differs; // old index -> whether it counts (not only edited text)
  for (const FailingProcess &f : differing)
    differs[f.oldIndex] = f.editedWords.empty();
  SpectrumProcesses out;
  for (size_t i = 0; i < oldRun.processes.size(); ++i) {
    if (!counterpart[i])
      continue;
    auto d = differs.find(i);
    if (d != differs.end() && !d->second)
      continue;
    const ProcessTrace &o = oldRun.processes[i], &n = newRun.processes[*counterpart[i]];
    if (o.header.process.parentSeq || n.header.process.parentSeq ||
        programOf(oldB, o.header.process) != &oldProg ||
        programOf(newB, n.header.process) != &newProg)
      continue;
    bool alike = d == differs.end();
    out.oldSide.push_back({o.trace, alike});
    out.newSide.push_back({n.trace, alike});
    out.newIndexes.push_back(*counterpart[i]);
  }
  return out;
}

// Carves the inputs of the new run's processes (`indexes`: the spectrum's into the run)
// to run one alone (docs/debug.md, "The test's other processes"). A process that printed
// nothing and wrote one file by a relative name (besides a file its stderr went to) is
// judged by that file; one that wrote more, or printed and wrote, is left out: a run
// alone compares one output, and the others could change unseen.
std::function<std::optional<ProgramInput>(size_t)> testProcessInputs(const TestCommandRun &run,
                                                                     std::vector<size_t> indexes) {
  auto shared = std::make_shared<const TestCommandRun>(run);
  return [shared, indexes = std::move(indexes)](size_t i) -> std::optional<ProgramInput> {
    if (i >= indexes.size())
      return std::nullopt;
    try {
      ProcessBehaviour b = processBehaviour(shared->processes[indexes[i]]);
      std::vector<std::string> notes; // said of the failing process already
      ProgramInput in = carvedInput(*shared, indexes[i], b, notes);
      std::vector<std::string> files;
      for (const auto &[name, text] : b.written)
        if (name != b.stderrFile)
          files.push_back(name);
      if (files.empty())
        return in; // judged by its stdout, its stderr and its ending
      auto out = b.output.find(1);
      bool printed = out != b.output.end() && !out->second.empty();
      if (files.size() > 1 || printed || !fs::path(files.front()).is_relative())
        return std::nullopt;
      in.outputFile = files.front();
      return in;
    } catch (const Error &) {
      return std::nullopt; // its trace or its copies cannot be read
    }
  };
}

} // namespace

CarvedProcess carveFailingProcess(const BuiltProject &oldB, const BuiltProject &newB,
                                  const ProjectDebugOptions &opt, Progress &progress,
                                  std::vector<std::string> &notes) {
  CarvedProcess out;
  TestCommand test{opt.test, opt.testTimeout, opt.expectedStdout};
  // This job's own (others may trace at the same time); kept for the test spectrum.
  auto traces = std::make_shared<ScopedWorkDir>("test-traces");
  auto tracedRuns = [&](const std::optional<std::set<std::string>> &ran) {
    return runTestCommandOnBoth({oldB, test, tracedPrograms(oldB, ran), traces->path / "old"},
                                {newB, test, tracedPrograms(newB, ran), traces->path / "new"});
  };
  // A project of a few programs is traced first, all of them: when those runs pass on the
  // old version and fail on the new, they are the verdict, and the native runs (which
  // otherwise tell which programs to trace) are not needed.
  std::optional<std::pair<TestCommandRun, TestCommandRun>> traced;
  std::string newStatus; // how the test ended on the new version
  if (oldB.programs.size() <= kTracedFirstPrograms &&
      newB.programs.size() <= kTracedFirstPrograms) {
    progress.stage("failure", "the test traced on both versions");
    traced = tracedRuns(std::nullopt);
    if (!traced->first.passed() || traced->second.passed() || traced->second.cannotTest())
      progress.stage("failure", "the test on both versions, natively: the traced runs did not "
                                "pass on the old version and fail on the new");
  }
  if (traced && traced->first.passed() && !traced->second.passed() &&
      !traced->second.cannotTest()) {
    out.testSeconds = traced->second.result.seconds; // errs long: traced runs are slower
    out.testTimedTraced = true;
    newStatus = statusText(traced->second.result);
  } else {
    if (!traced)
      progress.stage("failure", "the test on both versions");
    ScopedWorkDir work("project-test");
    // Both versions at once where the machine allows it; the new run's time is what a
    // whole test of a trial's tree is given, so it errs long when the runs shared the cores.
    auto [oldNative, newNative] = runTestCommandOnBoth({oldB, test, {}, work.path / "unused-old"},
                                                       {newB, test, {}, work.path / "unused-new"});
    if (oldNative.cannotTest())
      throw Error("the test cannot test the " + oldB.label + " version (exit 125)");
    if (!oldNative.passed())
      throw Error("the test fails on the " + oldB.label + " version too (" +
                  (oldNative.stdoutAsExpected ? statusText(oldNative.result)
                                              : std::string("its output differs from --expect")) +
                  "): '" + opt.test + "'");
    out.testSeconds = newNative.result.seconds;
    newStatus = statusText(newNative.result);
    if (newNative.cannotTest())
      throw Error("the test cannot test the " + newB.label + " version (exit 125)");
    if (newNative.passed())
      throw Error("the test passes on the " + newB.label + " version: nothing to debug ('" +
                  opt.test + "')")
          .withKind(kErrorTestPasses);
    if (!traced) { // traced runs of the programs the native runs ran
      progress.stage("failure", "the test traced on both versions");
      std::optional<std::set<std::string>> ran;
      if (oldNative.programsRun && newNative.programsRun) {
        ran.emplace(oldNative.programsRun->begin(), oldNative.programsRun->end());
        ran->insert(newNative.programsRun->begin(), newNative.programsRun->end());
      }
      traced = tracedRuns(ran);
    }
  }
  const TestCommandRun &oldRun = traced->first, &newRun = traced->second;
  std::string counts = std::to_string(oldRun.processes.size()) + " traced process(es) in the " +
                       oldB.label + " run, " + std::to_string(newRun.processes.size()) +
                       " in the " + newB.label + " run";
  std::vector<FailingProcess> differing =
      differingProcesses(oldRun.processes, newRun.processes, editedText(oldB.home, newB.home));
  if (differing.size() > 1)
    progress.stage("failure", "which differing process the test judges");
  JudgingLimits limits;
  limits.testSeconds = out.testSeconds;
  limits.testTimedTraced = out.testTimedTraced;
  JudgedProcess judged =
      judgedProcess(oldB, newB, test, oldRun.processes, newRun.processes, differing, limits);
  std::optional<FailingProcess> f = judged.process;
  if (!f)
    throw Error("the test '" + opt.test + "' fails on the " + newB.label + " version (" +
                    newStatus + "), but no traced program behaves otherwise (" + counts +
                    "): the difference comes from a program rootline does not trace",
                ExitFailure);
  const TraceProcess &p = oldRun.processes[f->oldIndex].header.process;
  std::string where = fs::path(p.cwd).lexically_relative(projectWorkPath()).string();
  if (where.starts_with("..")) // outside the tree (a test's temporary directory): as it is
    where = p.cwd;
  notes.push_back("test '" + opt.test + "': passes on the " + oldB.label +
                  " version, fails on the " + newB.label + " (" + newStatus + "); " + counts);
  // What the processes printed may name the built tree (a script's "$top/yacc" in a
  // message): its path is rootline's work path, so the reader sees <tree> instead.
  std::string why = f->why, tree = projectWorkPath().string();
  bool treeNamed = false;
  for (size_t at; (at = why.find(tree)) != std::string::npos; treeNamed = true)
    why.replace(at, tree.size(), "<tree>");
  if (treeNamed)
    why += " (<tree>: the top of the built tree)";
  notes.push_back(
      "failing process: `" + commandLine(p) + "` in " +
      (where.empty() || where == "." ? "the tree's top" : where) + ", process " +
      std::to_string(f->oldIndex + 1) + " of the " + oldB.label + " run: " +
      (judged.confirmed ? std::string("with every other command whose behaviour differs run by "
                                      "the " +
                                      oldB.label + " version, it alone still fails the test; ")
       : judged.passedOver > 0
           ? std::string("the first whose behaviour differs that no trial with the "
                         "other commands run by the " +
                         oldB.label + " version passed over; ")
       : f->oldIndex != differing.front().oldIndex
           ? std::string("the first whose behaviour differs in more than text the change "
                         "edited; ")
           : std::string("the first whose behaviour differs; ")) +
      why);
  for (const std::string &n : judged.notes)
    notes.push_back(n);
  // Earlier processes that print the versions' own text: passed over, and said so.
  for (const FailingProcess &v : differing) {
    if (v.oldIndex >= f->oldIndex)
      break;
    if (v.newIndex && v.editedWords.empty())
      continue; // a trial passed over it, or none was needed
    std::string words;
    for (const std::string &w : v.editedWords)
      words += (words.empty() ? "`" : ", `") + w + "`";
    std::string passed = "passed over `" +
                         commandLine(oldRun.processes[v.oldIndex].header.process) + "` (process " +
                         std::to_string(v.oldIndex + 1) + "): ";
    if (!v.newIndex && v.editedWords.empty())
      notes.push_back(passed + "the " + newB.label +
                      " run has no counterpart of it (a writer its reader's early exit ended "
                      "before it began, or a command only the old run ran)");
    else
      notes.push_back(passed + "its output differs only by text the change edited (" + words + ")");
  }
  if (!oldRun.isolationNote.empty())
    notes.push_back(oldRun.isolationNote);
  // A process with no counterpart is debugged only when a trial showed the test judges
  // it: then the new run ran its command, and its trace is what is missing.
  if (!f->newIndex && !judged.confirmed)
    throw Error("the failing process `" + commandLine(p) + "` did not run in the " + newB.label +
                    " version",
                ExitFailure);
  if (!f->newIndex)
    notes.push_back("the new run left no trace of the failing process (it ended before its "
                    "trace began); it is debugged from the old run's inputs");
  const TraceProcess &q = f->newIndex ? newRun.processes[*f->newIndex].header.process : p;
  const ProjectProgram *oldProg = programOf(oldB, p), *newProg = programOf(newB, q);
  if (!oldProg || !newProg)
    throw Error("the failing process `" + commandLine(p) + "` is not a program of the project");
  if (p.parentSeq)
    notes.push_back("the failing process is a forked child; it is debugged as its "
                    "program run alone with the same inputs");
  out.input = carvedInput(oldRun, f->oldIndex, f->oldBehaviour, notes);
  out.expectedStdout = f->oldBehaviour.output[1];
  if (!f->outputFile.empty()) { // what the test compares is a file the process writes
    fs::path file = fs::path(f->outputFile);
    if (file.is_absolute()) {
      fs::path rel = file.lexically_relative(p.cwd);
      if (!rel.empty() && !rel.string().starts_with("..")) {
        file = rel;
      } else if (inTempDir(f->outputFile)) { // laid out like the arguments there
        file = relocatedName(f->outputFile);
        fs::path dir = fs::path(f->outputFile).parent_path();
        for (size_t i = 1; i < p.argv.size(); ++i)
          if (p.argv[i] == f->outputFile || fs::path(p.argv[i]) == dir)
            out.input.args[i - 1] = relocatedName(p.argv[i]);
      } else {
        throw Error("the failing process `" + commandLine(p) + "` writes the file that differs, " +
                        f->outputFile +
                        ", outside its working directory and outside a temporary directory: "
                        "rootline cannot run it alone there",
                    ExitFailure);
      }
    }
    out.input.outputFile = file.string();
    out.expectedStdout = f->oldBehaviour.written[f->outputFile];
    notes.push_back("the failing process's output is the file " + file.string() +
                    " it writes: debugged as its output, in place of its stdout");
  }
  // What the process printed of a relocated path, it prints of the path its run alone
  // gets (a program that echoes its argument).
  for (size_t i = 1; i < p.argv.size(); ++i) {
    const std::string &was = p.argv[i], &now = out.input.args[i - 1];
    if (was == now || !fs::path(was).is_absolute())
      continue;
    for (size_t at = 0; (at = out.expectedStdout.find(was, at)) != std::string::npos;
         at += now.size())
      out.expectedStdout.replace(at, was.size(), now);
  }
  out.oldProgram = oldProg;
  out.newProgram = newProg;
  SpectrumProcesses spectrum =
      spectrumProcesses(oldB, newB, oldRun, newRun, differing, *oldProg, *newProg);
  out.newProcessInput = testProcessInputs(newRun, spectrum.newIndexes);
  out.oldProcesses = std::move(spectrum.oldSide);
  out.newProcesses = std::move(spectrum.newSide);
  out.traces = traces;
  out.name = "`" + commandLine(p) + "` (process " + std::to_string(f->oldIndex + 1) + " of the " +
             oldB.label + " run)";
  return out;
}

DebugRequest projectDebugRequest(const ProjectDebugOptions &opt, DebugRequest req,
                                 const fs::path &oldTree, const fs::path &newTree,
                                 Progress &progress) {
  ProjectBuildOptions build;
  build.command = opt.build;
  build.progress = &progress;
  BuiltProject oldB = buildProject(oldTree, "old", build);
  BuiltProject newB = buildProject(newTree, "new", build);
  // Reports name files in the built trees (the debug info does); the change is the
  // source trees' (git's, between commits).
  req.oldRoot = oldB.home;
  req.newRoot = newB.home;
  if (!req.sourceDiff)
    req.sourceDiff = sourceTreeDiff(oldTree, newTree);
  // How each version was built, in words: the report names no cache path (the logs'
  // paths are in the progress output and in an error when a build fails).
  auto how = [](const BuiltProject &b) {
    return b.cacheHit              ? std::string("from the cache")
           : !b.reusedFrom.empty() ? std::string("incrementally, from a nearby version's build")
                                   : std::string("built afresh");
  };
  req.leadNotes.push_back("built by '" + oldB.command + "' (" + oldB.label + ": " + how(oldB) +
                          "; " + newB.label + ": " + how(newB) + ")");
  if (opt.test.empty()) { // the test is one process: --stdin, --file, args
    req.oldBuilt = builtVersion(oldB, selectProgram(oldB, opt.target));
    const ProjectProgram &prog = selectProgram(newB, opt.target);
    req.newBuilt = builtVersion(newB, prog);
    req.buildVariant = variantBuilder(newB, prog.path);
    return req;
  }

  CarvedProcess carved = carveFailingProcess(oldB, newB, opt, progress, req.leadNotes);
  req.input = carved.input;
  req.expectedStdout = carved.expectedStdout;
  req.wholeBehaviour = true;
  req.processName = carved.name;
  const ProjectProgram *oldProg = carved.oldProgram, *newProg = carved.newProgram;
  req.oldBuilt = builtVersion(oldB, *oldProg);
  req.newBuilt = builtVersion(newB, *newProg);
  req.buildVariant = variantBuilder(newB, newProg->path);
  req.runWholeTest = wholeTestRunner(newB, {opt.test, opt.testTimeout, opt.expectedStdout});
  req.wholeTestSeconds = carved.testSeconds;
  req.wholeTestTimedTraced = carved.testTimedTraced;
  req.oldTestProcesses = std::move(carved.oldProcesses);
  req.newTestProcesses = std::move(carved.newProcesses);
  req.testTraces = carved.traces;
  req.newTestProcessInput = carved.newProcessInput;
  return req;
}

} // namespace rootline::cli
