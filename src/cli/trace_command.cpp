// rootline trace: run the program natively under the tracer, write the trace, replay
// it with the fidelity check, and summarise.
#include "cli/cli.h"
#include "rootline/error.h"
#include "rootline/json_text.h"
#include "rootline/replay.h"
#include "rootline/run.h"
#include "rootline/solver_context.h"
#include "rootline/symbolic.h"

#include <llvm/IR/Module.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <iostream>

namespace rootline::cli {

namespace {

struct TraceOptions {
  RecipeRequest recipe;
  std::string stdinFile;
  double timeout = 30;
  std::string traceOut;
  uint64_t maxTraceBytes = 4ull << 30;
  std::string smt2;
  std::vector<std::string> args;
};

std::string outcomeText(const TracedRun &run, const ReplayResult &replay) {
  if (run.process.timedOut)
    return "timeout";
  if (run.limitReached || replay.outcome == RunOutcome::Limit)
    return "trace limit reached";
  if (replay.outcome == RunOutcome::Signal) {
    std::string s = "signal " + signalName(replay.signal);
    if (replay.crashInst) {
      SourceLocation loc = ModuleIndex::locationOf(replay.crashInst);
      s += " at " + (loc.valid() ? loc.str() : std::string("?")) + " in " +
           replay.crashInst->getFunction()->getName().str();
    }
    return s;
  }
  if (replay.outcome == RunOutcome::Exit)
    return "exit " + std::to_string(replay.exitStatus);
  if (replay.outcome == RunOutcome::Exec)
    return "exec (the process replaced its image)";
  return "incomplete trace";
}

int runTrace(const GlobalOptions &global, const TraceOptions &opt) {
  BuildRecipe recipe = resolveRecipe(opt.recipe);
  TracedProgram program = buildTraced(recipe);
  TestCase test;
  test.stdinFile = stdinOption(opt.stdinFile);
  test.args = opt.args;
  test.timeoutSeconds = opt.timeout;
  test.maxTraceBytes = opt.maxTraceBytes;
  fs::path traceFile =
      opt.traceOut.empty() ? makeWorkDir("trace") / "run.trace" : fs::absolute(opt.traceOut);

  TracedRun run = runTraced(program, test, traceFile);
  if (!global.json) {
    std::cout << run.process.out << std::flush;
    std::cerr << run.process.err << std::flush;
  }
  if (run.limitReached)
    throw Error("trace exceeds --max-trace-bytes (" + std::to_string(opt.maxTraceBytes) +
                " bytes); the program was stopped. Raise the limit or shorten the test");

  auto start = std::chrono::steady_clock::now();
  LoadedModule loaded = loadModule(program.module.bitcode);
  ModuleIndex index(*loaded.module);
  TraceReader reader(traceFile, program.module.key);
  SolverContext solver; // destroyed on the reaper thread (rootline/solver_context.h)
  z3::context &ctx = solver.get();
  SymbolicReplayer symbolic(ctx, *loaded.module);
  ReplayResult replay =
      replayTrace(*loaded.module, index, reader, opt.smt2.empty() ? nullptr : &symbolic);
  if (!opt.smt2.empty()) {
    SymbolicRun run = symbolic.take();
    writeFileAtomic(fs::absolute(opt.smt2), run.smtlib(ctx));
    if (!global.json && !global.quiet)
      std::cerr << "rootline: trace: path condition: " << run.path.size()
                << " branch constraints over " << run.inputs.size()
                << " input variables written to " << opt.smt2 << "\n";
  }
  double replaySeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (run.process.timedOut)
    throw Error("the program did not finish within " +
                std::to_string(static_cast<int>(opt.timeout)) +
                " s (--timeout); it was stopped after " + std::to_string(replay.instances) +
                " instructions");

  if (reader.truncated() && replay.outcome == RunOutcome::Incomplete)
    throw Error("the trace ends in the middle of an event: the program was killed (" +
                run.process.outcome() + ")");
  std::string outcome = outcomeText(run, replay);
  uint64_t traceBytes = fs::file_size(traceFile);
  if (global.json) {
    nlohmann::json j = {
        {"outcome", outcome},
        {"exit_status", run.process.signal ? 128 + run.process.signal : run.process.exitCode},
        {"signal", run.process.signal ? signalName(run.process.signal) : ""},
        {"instructions", replay.instances},
        {"events", replay.events},
        {"trace_bytes", traceBytes},
        {"trace", traceFile.string()},
        {"stdin_bytes_consumed", replay.stdinBytes},
        {"tokens", replay.tokens},
        {"output_events", replay.outputEvents},
        {"external_calls", replay.externalCalls},
        {"replay_mismatches", 0},
        {"replay_seconds", replaySeconds},
        {"build_cache_hit", program.cacheHit},
        {"stdout", run.process.out},
        {"stderr", run.process.err},
    };
    if (replay.crashInst) {
      SourceLocation loc = ModuleIndex::locationOf(replay.crashInst);
      j["crash"] = {{"file", loc.file},
                    {"line", loc.line},
                    {"function", replay.crashInst->getFunction()->getName().str()}};
    }
    std::cout << jsonText(j);
  } else if (!global.quiet) {
    std::cerr << "rootline: trace: " << replay.instances << " instructions, " << replay.events
              << " events, " << traceBytes << " trace bytes (" << traceFile.string() << ")\n"
              << "rootline: trace: input " << replay.stdinBytes << " stdin bytes, " << replay.tokens
              << " scanf tokens; " << replay.outputEvents << " output events; "
              << replay.externalCalls << " calls into uninstrumented code\n"
              << "rootline: trace: outcome " << outcome << "; replay verified (0 mismatches)\n";
  }
  if (run.process.signal)
    return 128 + run.process.signal;
  return run.process.exitCode;
}

} // namespace

void addTraceCommand(CLI::App &app, const GlobalOptions &global, Action &action) {
  auto opt = std::make_shared<TraceOptions>();
  CLI::App *cmd =
      app.add_subcommand("trace", "Run the program natively under the tracer, record a trace and "
                                  "replay it with a fidelity check");
  addRecipeOptions(*cmd, opt->recipe);
  cmd->add_option("--stdin", opt->stdinFile, "File fed to the program's stdin (default: empty)");
  cmd->add_option("--timeout", opt->timeout, "Seconds before the program is stopped (default 30)");
  cmd->add_option("--trace-out", opt->traceOut,
                  "Where to write the trace (default: a fresh file in the cache)");
  cmd->add_option("--max-trace-bytes", opt->maxTraceBytes,
                  "Stop the program when its trace grows past this "
                  "many bytes (default 4 GiB)");
  cmd->add_option("--smt2", opt->smt2,
                  "Write the run's path condition over its inputs as SMT-LIB2 to FILE");
  cmd->add_option("args", opt->args, "Program arguments (after --)");
  cmd->footer(
      "The program's stdout, stderr and exit status pass through unchanged (a signal becomes\n"
      "128+signo); the summary goes to stderr, or with --json to stdout as JSON.\n"
      "Example: rootline trace --src prog.c --stdin in.txt -- -v 3");
  cmd->callback(
      [&global, &action, opt] { action = [&global, opt] { return runTrace(global, *opt); }; });
}

} // namespace rootline::cli
