// A project built by its own build system and tested by its own test command
// (docs/project.md): configure + make, CMake, Meson or a Makefile builds each version
// in a private tree under the cache, with rootline-cc as the compiler, which records
// every unit's bitcode and every link; the programs the build links become rootline's
// traced and native executables.
#pragma once

#include "rootline/fs.h"
#include "rootline/process_traces.h"
#include "rootline/progress.h"
#include "rootline/run.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rootline {

// The one path every version is built and tested at (so paths a build records, and
// paths a test prints, are the same for both versions): $ROOTLINE_WORK_DIR, else
// <cache>/work/tree. One job at a time holds it (WorkPathLock).
fs::path projectWorkPath();

// Holds the work path for this process (an exclusive lock on a file beside it); a
// second rootline job waits, saying so on `progress`.
class WorkPathLock {
public:
  explicit WorkPathLock(Progress *progress = nullptr);
  ~WorkPathLock();
  WorkPathLock(const WorkPathLock &) = delete;
  WorkPathLock &operator=(const WorkPathLock &) = delete;

private:
  int fd_ = -1;
};

// The build command a tree gets without --build, in this order: `configure` →
// `./configure && make`; `configure.ac` → `autoreconf -fi && ./configure && make`;
// `CMakeLists.txt` → CMake into build/; `meson.build` → Meson into build/; a Makefile →
// `make`. Empty when none applies.
std::string detectBuildCommand(const fs::path &tree);

// One program the build linked.
struct ProjectProgram {
  std::string name;                  // the output's file name
  std::string path;                  // relative to the tree's top
  std::string linkDir;               // where the link ran, relative to the top
  std::vector<std::string> linkArgs; // the link's arguments, as the build gave them
  std::vector<fs::path> bitcode;     // its units' bitcode, from the program itself
};

struct BuiltProject {
  std::string label;   // names the version in messages ("old", a commit)
  fs::path home;       // the built tree, in the cache
  std::string command; // the build command that ran
  std::vector<ProjectProgram> programs;
  fs::path log; // the build's output
  bool cacheHit = false;
  double seconds = 0;
  // Built incrementally from a nearby version's built tree (its cache directory);
  // empty for a whole build (docs/project.md, "Nearby versions").
  std::string reusedFrom;
};

struct ProjectBuildOptions {
  std::string command; // --build; empty: detectBuildCommand
  double timeoutSeconds = 3600;
  Progress *progress = nullptr;
};

// Builds a copy of `sourceTree` (never the tree itself) with the project's build, or
// takes the built tree from the cache. A build that fails is an Error (exit 2) naming
// the version, the command and its first error line, with the log's path.
BuiltProject buildProject(const fs::path &sourceTree, const std::string &label,
                          const ProjectBuildOptions &options);

// The incremental part of a build command: what re-makes a built tree after a source
// edit (the last `&&` step: `make` of `./configure && make`, `cmake --build` of CMake's).
std::string incrementalCommand(const std::string &buildCommand);

// `base` with `files` (paths relative to its top -> their text) replaced, rebuilt
// incrementally in a copy of its built tree (cached by content): the path of
// `programPath` there. A build that fails is an Error (revert trials: "does not build").
fs::path buildProjectVariant(const BuiltProject &base,
                             const std::map<std::string, std::string> &files,
                             const std::string &programPath, double timeoutSeconds);
// The same variant as a built project (its home the variant's tree), for running the
// test command on it (a revert or edit trial confirmed by the whole test).
BuiltProject buildProjectVariantTree(const BuiltProject &base,
                                     const std::map<std::string, std::string> &files,
                                     double timeoutSeconds);

// The program under test: `target` (a program's name or path), else the only program
// the build linked. An unknown or ambiguous choice is an Error listing the programs.
const ProjectProgram &selectProgram(const BuiltProject &project, const std::string &target);

// A program's own bitcode files: the `.rootline_bc` section rootline-cc puts in every
// object it compiles, which the linker concatenates. Empty when it has none.
std::vector<fs::path> programBitcode(const fs::path &executable);

// The shared libraries of the project that a program links (libtool's
// `../lib/.libs/libkv.so`, a CMake or Meson `libfoo.so`, `-L../lib -lkv`), in `home`.
std::vector<fs::path> projectSharedLibraries(const ProjectProgram &program, const fs::path &home);
// The program's binary in `home`, runnable as it is: when it links shared libraries of
// the project, a copy beside it whose RPATH names their directories in `home` (patchelf),
// since in the tree a wrapper script or the test's environment finds them.
fs::path nativeExecutable(const ProjectProgram &program, const fs::path &home);

// The program linked traced (its units' module, with those of the project's shared
// libraries it links, instrumented, with the runtime and its own link line's libraries
// and archives) and natively (the project's own binary).
struct ProjectExecutables {
  TracedProgram traced;
  fs::path native;
};
ProjectExecutables programExecutables(const BuiltProject &project, const ProjectProgram &program);

// The compiler wrapper installed beside rootline (ROOTLINE_CC_WRAPPER overrides).
fs::path ccWrapperPath();

// `dir` holding the usual compiler names (cc, gcc, c99, c89, clang; c++, g++, clang++)
// as links to the wrapper, to put first on a build's PATH: a Makefile that names its
// compiler (`CC= gcc`) instead of honouring $CC still compiles through rootline-cc.
fs::path compilerNamesDir(const fs::path &wrapper, const fs::path &dir);
// PATH with `dir` first.
std::string pathWithCompilerNames(const fs::path &dir);

} // namespace rootline

namespace rootline {

// A test command (--test): run by /bin/sh from the top of a scratch copy of the built
// tree at the work path. Exit 0 passes, 125 cannot test, anything else fails.
struct TestCommand {
  std::string command;
  double timeoutSeconds = 600;
  // --expect with --test: the test passes only when it exits 0 and prints exactly this.
  std::optional<std::string> expectedStdout;
};

// A native test run where some processes are run by the other version's program
// (docs/project.md, "Which process the test judges"): rootline-substitute stands in for
// each program and runs, for a process with a listed directory and arguments, the old
// executable, and for every other process the new one.
struct ProcessSubstitution {
  struct Program {
    fs::path oldExecutable, newExecutable;
  };
  std::map<std::string, Program> programs; // by the program's path in the tree
  struct Process {
    std::string program; // its path in the tree
    std::string cwd;
    std::vector<std::string> args; // after argv[0]
  };
  std::vector<Process> asOld;
};

struct TestCommandRun {
  ProcessResult result;                // the command's own status and output
  std::vector<ProcessTrace> processes; // traced runs: every traced process, in start order
  fs::path traceDir;                   // where the traces and input copies are
  // How the run was kept apart from others: "" (a PID and mount namespace with a
  // private /tmp) or why not ("no namespaces: a private TMPDIR only").
  std::string isolationNote;
  // Native runs: the project's programs the test ran (their paths in the tree), seen by
  // their access times (set to 0 before the run, read after); nullopt when the
  // filesystem does not update them (noatime), and then any may have run.
  std::optional<std::vector<std::string>> programsRun;
  bool stdoutAsExpected = true; // false when the test's --expect output differs
  // Runs with a ProcessSubstitution: the entries of its `asOld` that a process matched,
  // and the command of every process of its programs that ran the new version.
  std::set<size_t> substitutedRan;
  std::vector<ProcessSubstitution::Process> ranAsNew;
  bool passed() const { return result.exitedWith(0) && stdoutAsExpected; }
  bool cannotTest() const { return result.exitedWith(125); }
};

// Runs the test on a scratch copy of `project` (the home itself is never changed).
// `traced` maps programs (their paths in the tree) to executables put in their place;
// with any, every traced process writes its trace under `traceDir`. With `substitution`
// (and nothing traced), its programs are run as it says.
TestCommandRun runTestCommand(const BuiltProject &project, const TestCommand &test,
                              const std::vector<std::pair<std::string, fs::path>> &traced,
                              const fs::path &traceDir,
                              const ProcessSubstitution *substitution = nullptr);

// One run of runTestCommandOnBoth: a built tree, the test, and what to trace.
struct TestRunOf {
  const BuiltProject &project;
  const TestCommand &test;
  std::vector<std::pair<std::string, fs::path>> traced;
  fs::path traceDir;
};

// Two runs of runTestCommand (such as the old and the new version's), at the same time
// where each can see its own tree at the work path (a bind mount in its mount namespace),
// else one after the other. The runs see the same paths either way.
std::pair<TestCommandRun, TestCommandRun> runTestCommandOnBoth(const TestRunOf &a,
                                                               const TestRunOf &b);
// Whether runTestCommandOnBoth runs its two at the same time on this machine.
bool testRunsGoAtOnce();

// rootline-substitute, installed beside rootline (ROOTLINE_SUBSTITUTE_PROGRAM overrides).
fs::path substituteProgramPath();

// What one traced process did that others can see: its output per file descriptor
// (1 stdout, 2 stderr, others files it wrote) and how it ended.
struct ProcessBehaviour {
  std::map<uint64_t, std::string> output;
  std::map<uint64_t, std::string> opened; // input source id -> the name it was opened by
  // The files it opened for writing, by the name it used, as they were when it ended
  // (the runtime's copies; docs/project.md, "Files a process writes").
  std::map<std::string, std::string> written;
  // Of those, the one its stderr pointed at when it ended (`freopen (name, "w", stderr)`:
  // diffstat -e FILE): diagnostics, compared after its other outputs.
  std::optional<std::string> stderrFile;
  std::string ending; // "exit 0", "signal 11", "exec", "incomplete"
  // Its stdout or stderr went to /dev/null or /dev/full when it started: the test never
  // sees what it wrote there (`mawk '{print}' <big >/dev/full`, checked by its status).
  std::set<uint64_t> unseen;
};
ProcessBehaviour processBehaviour(const ProcessTrace &p);

// The words of the lines a change removed and of the lines it added, in the two built
// trees' sources, headers and generated configuration (config.h, Makefile, configure):
// version strings and dates the change edited.
struct EditedText {
  std::set<std::string> removed, added;
};
EditedText editedText(const fs::path &oldTree, const fs::path &newTree);

// What an output's difference consists of when it is only words the change edited (each
// old-only word of a differing line among `removed`, each new-only one among `added`;
// same lines otherwise): the pairs "old → new", else empty. A program that prints the
// version's own text (`prog --version`) differs so in every change.
std::vector<std::string> editedTextOnly(const std::string &oldText, const std::string &newText,
                                        const EditedText &edited);

// A process of the old run whose behaviour differs in the new run (docs/project.md).
struct FailingProcess {
  size_t oldIndex = 0;              // into the old run's processes
  std::optional<size_t> newIndex;   // its counterpart, if the new run started one
  std::string why;                  // "its stdout differs at byte 4: ..."
  std::optional<uint64_t> outputFd; // the descriptor whose output differs first
  std::string outputFile;           // else the file it wrote that differs first
  ProcessBehaviour oldBehaviour;    // what it did in the old run
  // Its outputs differ only by words the change edited ("2.0-20200205 → 2.0-20200608").
  std::vector<std::string> editedWords;
};

// Each old process's counterpart in the new run: the new process with the same program,
// directory and arguments that is as many-th with them; else the first one left whose
// arguments end the same (a script's `mktemp -d` directory differs from run to run).
std::vector<std::optional<size_t>> processCounterparts(const std::vector<ProcessTrace> &oldRun,
                                                       const std::vector<ProcessTrace> &newRun);

// Every process of the old run whose behaviour differs in the new run, in start order.
std::vector<FailingProcess> differingProcesses(const std::vector<ProcessTrace> &oldRun,
                                               const std::vector<ProcessTrace> &newRun,
                                               const EditedText &edited = {});

// The failing process of a test among its differing processes: the first whose
// difference is not only text the change edited; the first one when every one is.
std::optional<FailingProcess> failingProcessOf(const std::vector<FailingProcess> &differing);
// failingProcessOf(differingProcesses(...)).
std::optional<FailingProcess> firstDifferingProcess(const std::vector<ProcessTrace> &oldRun,
                                                    const std::vector<ProcessTrace> &newRun,
                                                    const EditedText &edited = {});

// The process the test judges (docs/project.md, "Which process the test judges"): when
// processes of more than one command differ, the test is run natively on the new
// version with every differing process but one command's run by the old version, for
// each command in failingProcessOf's order, within `limits`: the first command whose
// processes alone still fail the test is the failing process, and those with which the
// test passes are passed over.
struct JudgingLimits {
  size_t maxTrials = 4;
  double testSeconds = 0;       // how long one run of the test took (a trial's estimate)
  bool testTimedTraced = false; // that run was traced: a native trial takes less
  double budgetSeconds = 120;   // no trial starts that would end past this
};
struct JudgedProcess {
  std::optional<FailingProcess> process;
  bool confirmed = false;         // a trial showed the test fails with only its command new
  size_t passedOver = 0;          // commands a trial showed the test does not judge
  std::vector<std::string> notes; // commands passed over by a trial, trials that told nothing
};
JudgedProcess judgedProcess(const BuiltProject &oldB, const BuiltProject &newB,
                            const TestCommand &test, const std::vector<ProcessTrace> &oldRun,
                            const std::vector<ProcessTrace> &newRun,
                            const std::vector<FailingProcess> &differing,
                            const JudgingLimits &limits);

// The project's program a traced process ran (its executable lies in the work path);
// nullptr for another program.
const ProjectProgram *programOf(const BuiltProject &project, const TraceProcess &p);

// A process's command line as a shell would show it.
std::string commandLine(const TraceProcess &p);

} // namespace rootline
