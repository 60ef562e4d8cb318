// Shared pieces of the command-line interface: global options and the registration
// function of each subcommand (one file per subcommand).
#pragma once

#include "rootline/build.h"
#include "rootline/debug.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>

namespace rootline::cli {

struct GlobalOptions {
  bool json = false;  // machine output on stdout
  bool quiet = false; // no progress on stderr
};

// The action a subcommand runs after parsing; returns the process exit code.
using Action = std::function<int()>;

// Adds --budget SECONDS (the whole job's time; 0: unlimited) to a subcommand.
void addBudgetOption(CLI::App &cmd, double &seconds);

// Adds --src/--cflags/--lib/--project to a subcommand.
void addRecipeOptions(CLI::App &cmd, RecipeRequest &request);
// The same options as a command line, for a work unit (docs/cluster.md): --project and
// --recipe as absolute paths (--src stays relative to each tree or to the unit's
// working directory, as it was typed).
std::vector<std::string> recipeArgs(const RecipeRequest &request);

// The --stdin option's file as an absolute path, checked; none when not given.
std::optional<fs::path> stdinOption(const std::string &file);
// --file NAME=PATH (repeatable): files the program reads from its working directory.
void addFileOption(CLI::App &cmd, std::vector<std::string> &specs);
void addInputFiles(ProgramInput &input, const std::vector<std::string> &specs);

// The test of a regression: stdin file, expected stdout file, program arguments.
struct TestOptions {
  std::string stdinFile, expectFile;
  std::vector<std::string> args, files;
  double timeout = 30;
};
void addTestOptions(CLI::App &cmd, TestOptions &options);
ProgramInput testInput(const TestOptions &options);                  // reads --stdin
std::optional<std::string> testExpected(const TestOptions &options); // reads --expect

// Writes report files into `dir` (created when missing). Refuses a directory that holds
// other files and no earlier rootline report, so --out never overwrites user data.
using ReportFiles = std::vector<std::pair<std::string, std::string>>; // name, contents
void writeReportFiles(const fs::path &dir, const ReportFiles &files);
// report.json, report.md, report.sarif and report.html of a debug report.
ReportFiles debugReportFiles(const DebugReport &report);

void addTraceCommand(CLI::App &app, const GlobalOptions &global, Action &action);
void addExploreCommand(CLI::App &app, const GlobalOptions &global, Action &action);
void addSliceCommand(CLI::App &app, const GlobalOptions &global, Action &action);
void addDebugCommand(CLI::App &app, const GlobalOptions &global, Action &action);
void addBisectCommand(CLI::App &app, const GlobalOptions &global, Action &action);
void addValidateCommand(CLI::App &app, const GlobalOptions &global, Action &action);

} // namespace rootline::cli
