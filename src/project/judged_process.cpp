// Which of a test's differing processes the test judges: a process can differ without
// the test looking at it (a banner that prints the version, `prog -W version`), so the
// test itself is asked, with the other differing commands run by the old version.
#include "rootline/project.h"

#include <algorithm>
#include <chrono>

namespace rootline {

namespace {

// A command of the new run: its program's path in the tree, its directory and arguments.
std::optional<ProcessSubstitution::Process> commandOf(const BuiltProject &project,
                                                      const TraceProcess &p) {
  const ProjectProgram *prog = programOf(project, p);
  if (!prog)
    return std::nullopt;
  return ProcessSubstitution::Process{
      prog->path, p.cwd,
      std::vector<std::string>(p.argv.begin() + (p.argv.empty() ? 0 : 1), p.argv.end())};
}

bool sameCommand(const ProcessSubstitution::Process &a, const ProcessSubstitution::Process &b) {
  return a.program == b.program && a.cwd == b.cwd && a.args == b.args;
}

// The same program with arguments of the same last path components, in any directory:
// a command in a `mktemp -d` directory, which has another name in each run.
bool looselySameCommand(const ProcessSubstitution::Process &a,
                        const ProcessSubstitution::Process &b) {
  auto last = [](const std::string &s) { return s.substr(s.find_last_of('/') + 1); };
  if (a.program != b.program || a.args.size() != b.args.size())
    return false;
  for (size_t i = 0; i < a.args.size(); ++i)
    if (last(a.args[i]) != last(b.args[i]))
      return false;
  return true;
}

// The order failingProcessOf prefers: a difference in more than edited text first, and
// among those a process that ran in both runs first.
std::vector<size_t> preferenceOrder(const std::vector<FailingProcess> &differing) {
  std::vector<size_t> out;
  for (bool edited : {false, true})
    for (bool counterpart : {true, false})
      for (size_t i = 0; i < differing.size(); ++i)
        if (differing[i].editedWords.empty() != edited &&
            differing[i].newIndex.has_value() == counterpart)
          out.push_back(i);
  return out;
}

} // namespace

JudgedProcess judgedProcess(const BuiltProject &oldB, const BuiltProject &newB,
                            const TestCommand &test, const std::vector<ProcessTrace> &oldRun,
                            const std::vector<ProcessTrace> &newRun,
                            const std::vector<FailingProcess> &differing,
                            const JudgingLimits &limits) {
  JudgedProcess out;
  out.process = failingProcessOf(differing);
  auto processOf = [&](const FailingProcess &f) -> const TraceProcess & {
    return f.newIndex ? newRun[*f.newIndex].header.process : oldRun[f.oldIndex].header.process;
  };
  // The commands of the processes that differ and ran in both runs, each with the first
  // of its processes in the preferred order.
  std::vector<std::pair<ProcessSubstitution::Process, size_t>> commands;
  for (size_t i : preferenceOrder(differing)) {
    // One with no counterpart ran the same command in the new run, though its trace is
    // missing (it ended before its trace began): the old run's command names it.
    std::optional<ProcessSubstitution::Process> c = commandOf(newB, processOf(differing[i]));
    if (!c)
      return out; // a program of the project must stand in for every one of them
    // A command whose directory or arguments differ between the runs (a `mktemp` name)
    // cannot be named to the next run: no trial could run it by the old version.
    if (differing[i].newIndex) {
      std::optional<ProcessSubstitution::Process> old =
          commandOf(newB, oldRun[differing[i].oldIndex].header.process);
      if (!old || !sameCommand(*old, *c))
        return out;
    }
    if (std::none_of(commands.begin(), commands.end(),
                     [&](const auto &k) { return sameCommand(k.first, *c); }))
      commands.emplace_back(std::move(*c), i);
  }
  if (commands.size() < 2)
    return out; // one command differs: it is the one
  ProcessSubstitution sub;
  for (const ProjectProgram &prog : newB.programs) {
    auto old = std::find_if(oldB.programs.begin(), oldB.programs.end(),
                            [&](const ProjectProgram &o) { return o.path == prog.path; });
    if (old != oldB.programs.end())
      sub.programs[prog.path] = {nativeExecutable(*old, oldB.home),
                                 nativeExecutable(prog, newB.home)};
  }
  for (const auto &c : commands)
    if (!sub.programs.count(c.first.program))
      return out; // the old version has no such program
  // The commands of the new run's processes that behaved as in the old run.
  std::vector<bool> differs(newRun.size(), false);
  for (const FailingProcess &f : differing)
    if (f.newIndex)
      differs[*f.newIndex] = true;
  std::vector<ProcessSubstitution::Process> alike;
  for (size_t i = 0; i < newRun.size(); ++i)
    if (!differs[i])
      if (std::optional<ProcessSubstitution::Process> c = commandOf(newB, newRun[i].header.process))
        alike.push_back(std::move(*c));
  ScopedWorkDir scratch("judged-process");
  std::vector<bool> passedOver(commands.size(), false);
  auto start = std::chrono::steady_clock::now();
  for (size_t k = 0; k < commands.size() && k < limits.maxTrials; ++k) {
    // A trial takes about as long as the test's native run: none that would end past
    // the trials' share.
    double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (spent + limits.testSeconds > limits.budgetSeconds) {
      out.notes.push_back("no trial asked the test which differing process it judges: a run of "
                          "the test takes " +
                          std::to_string(static_cast<int>(limits.testSeconds + 0.5)) +
                          (limits.testTimedTraced ? " s traced" : " s") +
                          ", and the trials' share is " +
                          std::to_string(static_cast<int>(limits.budgetSeconds)) + " s");
      break;
    }
    const auto &[command, index] = commands[k];
    sub.asOld.clear();
    for (const auto &other : commands)
      if (!sameCommand(other.first, command))
        sub.asOld.push_back(other.first);
    TestCommandRun run = runTestCommand(newB, test, {}, scratch.path / "unused", &sub);
    std::string name = "`" + commandLine(processOf(differing[index])) + "`";
    // Each process that ran new must be of the candidate's command or of one that behaved
    // alike in both traced runs: one with a directory or argument that differs from run to
    // run (a `mktemp` name) matched no list entry, and might be one that differs.
    bool known = std::all_of(run.ranAsNew.begin(), run.ranAsNew.end(), [&](const auto &p) {
      auto loosely = [&](const auto &a) { return looselySameCommand(a, p); };
      return sameCommand(p, command) || (std::any_of(alike.begin(), alike.end(), loosely) &&
                                         std::none_of(sub.asOld.begin(), sub.asOld.end(), loosely));
    });
    if (!known) {
      out.notes.push_back("the trial with only " + name +
                          " run by the new version told nothing: a process of the project's "
                          "programs ran a command that the traced runs did not");
      continue;
    }
    if (run.passed()) {
      out.notes.push_back("passed over " + name + " (process " +
                          std::to_string(differing[index].oldIndex + 1) +
                          "): with every other differing command run by the old version, the "
                          "test passes, so the test does not judge it");
      passedOver[k] = true;
      ++out.passedOver;
      continue;
    }
    if (run.cannotTest())
      continue;
    out.process = differing[index];
    out.confirmed = true;
    return out;
  }
  // No trial showed one: the first command no trial passed over; when every one was,
  // the failure takes several of them together, and the first is debugged.
  for (size_t k = 0; k < commands.size(); ++k)
    if (!passedOver[k]) {
      out.process = differing[commands[k].second];
      return out;
    }
  out.process = differing[commands.front().second];
  out.notes.push_back("with any one differing command run by the new version and the others by "
                      "the old, the test passes: it fails only from several of them together");
  return out;
}

} // namespace rootline
