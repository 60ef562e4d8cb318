// rootline: why did my C program regress?
#include "cli/cli.h"
#include "cli/fan_out.h"
#include "rootline/error.h"
#include "rootline/json_text.h"
#include "rootline/solver_context.h"

#include <cstdio>
#include <iostream>

#include <unistd.h>

namespace {

int run(int argc, char **argv) {
  using namespace rootline;
  CLI::App app{
      "rootline: explains why a C program regressed, from two versions and a failing test.\n"
      "Traces the test natively on both versions, slices, composes relevant slice\n"
      "conditions with Z3 and reports ranked root-cause lines with evidence inputs."};
  app.name("rootline");
  app.set_version_flag("--version", std::string("rootline ") + ROOTLINE_VERSION);
  app.require_subcommand(1);
  cli::GlobalOptions global;
  app.add_flag("--json", global.json, "Machine-readable JSON on stdout; no progress output");
  app.add_flag("-q,--quiet", global.quiet, "No progress output on stderr");
  // `rootline debug ... --json` as well as `rootline --json debug ...` (subcommands
  // created after this inherit it and pass options they lack up to here).
  app.fallthrough();
  app.footer(
      "Exit codes: 0 success, 1 the checked condition failed (e.g. a bad commit), 2 bad input or\n"
      "usage, 3 internal error, 125 cannot test. See docs/cli.md.");

  cli::Action action;
  cli::addTraceCommand(app, global, action);
  cli::addSliceCommand(app, global, action);
  cli::addExploreCommand(app, global, action);
  cli::addDebugCommand(app, global, action);
  cli::addBisectCommand(app, global, action);
  cli::addValidateCommand(app, global, action);
  cli::addTriageCommand(app, global, action);
  cli::addWorkCommands(app, global, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : ExitBadInput;
  }
  try {
    return action ? action() : ExitBadInput;
  } catch (const Error &e) {
    if (global.json) // machine-readable, for scripts and fan-outs (docs/cli.md)
      std::cout << jsonText(
          {{"schema", "rootline.error/1"},
           {"error", e.what()},
           {"kind", e.kind().empty() ? nlohmann::json(nullptr) : nlohmann::json(e.kind())},
           {"exit_code", e.exitCode()}});
    std::cerr << "rootline: error: " << e.what() << "\n";
    if (!e.detail().empty())
      std::cerr << e.detail() << (e.detail().back() == '\n' ? "" : "\n");
    return e.exitCode();
  } catch (const std::exception &e) {
    std::cerr << "rootline: internal error: " << e.what() << "\n";
    return ExitInternal;
  }
}

} // namespace

// A job's Z3 contexts may still be being destroyed on their own thread (a context whose
// timed-out checks leaked terms takes seconds to free): the output is complete, so the
// process ends without waiting for them (rootline/solver_context.h).
int main(int argc, char **argv) {
  int code = run(argc, argv);
  if (rootline::exitWithoutWaitingForSolvers()) {
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    _exit(code);
  }
  return code;
}
