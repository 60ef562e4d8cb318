// Options and report output shared by subcommands.
#include "cli/cli.h"
#include "rootline/error.h"
#include "rootline/json_text.h"

#include <iostream>

namespace rootline::cli {

void addBudgetOption(CLI::App &cmd, double &seconds) {
  cmd.add_option("--budget", seconds,
                 "Seconds for the whole job (default " + std::to_string(static_cast<int>(seconds)) +
                     ", 0: unlimited); stages that reach their share stop early, say so in "
                     "the report, and the best answer so far is kept")
      ->check(CLI::NonNegativeNumber);
}

void addRecipeOptions(CLI::App &cmd, RecipeRequest &request) {
  cmd.add_option("--src", request.sources,
                 "C source files of the program (default: rootline.json or "
                 "compile_commands.json in --project)")
      ->expected(1, -1);
  cmd.add_option("--cflags", request.cflags, "Extra compiler flags, one string (\"-Iinc -DN=3\")");
  cmd.add_option("--lib", request.libs, "Library to link, without -l (e.g. --lib m)");
  cmd.add_option("--project", request.projectDir,
                 "Project directory holding rootline.json or "
                 "compile_commands.json (default: .)");
  cmd.add_option("--target", request.target,
                 "The program to build when compile_commands.json builds several (its "
                 "executable's name, or its main file)");
  cmd.add_option("--recipe", request.recipeFile,
                 "A rootline.json or compile_commands.json for versions whose tree has none "
                 "(old commits); its paths are re-rooted into each version's tree");
}

std::vector<std::string> recipeArgs(const RecipeRequest &request) {
  auto abs = [](const std::string &p) { return fs::absolute(p).lexically_normal().string(); };
  std::vector<std::string> a;
  for (const auto &src : request.sources)
    a.insert(a.end(), {"--src", src});
  if (!request.cflags.empty())
    a.insert(a.end(), {"--cflags", request.cflags});
  for (const auto &l : request.libs)
    a.insert(a.end(), {"--lib", l});
  if (!request.projectDir.empty())
    a.insert(a.end(), {"--project", abs(request.projectDir)});
  if (!request.target.empty())
    a.insert(a.end(), {"--target", request.target});
  if (!request.recipeFile.empty())
    a.insert(a.end(), {"--recipe", abs(request.recipeFile)});
  return a;
}

std::optional<fs::path> stdinOption(const std::string &file) {
  if (file.empty())
    return std::nullopt;
  // Any readable file that is not a directory: /dev/null and named pipes too.
  std::error_code ec;
  if (!fs::exists(file, ec))
    throw Error("stdin file '" + file + "' does not exist");
  if (fs::is_directory(file, ec))
    throw Error("stdin file '" + file + "' is a directory");
  return fs::absolute(file);
}

void addFileOption(CLI::App &cmd, std::vector<std::string> &specs) {
  cmd.add_option("--file", specs,
                 "A file the program reads, as NAME=PATH or PATH (NAME: its base name): each "
                 "run finds a copy at NAME in its own working directory (repeatable)");
}

void addInputFiles(ProgramInput &input, const std::vector<std::string> &specs) {
  for (const std::string &spec : specs) {
    size_t eq = spec.find('=');
    std::string path = eq == std::string::npos ? spec : spec.substr(eq + 1);
    std::string name =
        eq == std::string::npos ? fs::path(spec).filename().string() : spec.substr(0, eq);
    fs::path n = fs::path(name).lexically_normal();
    if (name.empty() || n.is_absolute() || (!n.empty() && *n.begin() == ".."))
      throw Error("--file '" + spec + "': NAME must be a relative path inside the run directory");
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw Error("--file '" + spec + "': file '" + path + "' does not exist");
    input.files[n.string()] = readFile(path);
  }
}

void addTestOptions(CLI::App &cmd, TestOptions &options) {
  cmd.add_option("--stdin", options.stdinFile, "The test's stdin (a file)");
  addFileOption(cmd, options.files);
  cmd.add_option("--expect", options.expectFile,
                 "The test's expected stdout (a file; default: what the good version prints)");
  cmd.add_option("--timeout", options.timeout, "Seconds per program run (default 30)");
  cmd.add_option("args", options.args, "Program arguments of the test (after --)");
}

ProgramInput testInput(const TestOptions &options) {
  ProgramInput in;
  if (auto f = stdinOption(options.stdinFile))
    in.stdinBytes = readFile(*f);
  in.args = options.args;
  addInputFiles(in, options.files);
  return in;
}

std::optional<std::string> testExpected(const TestOptions &options) {
  if (options.expectFile.empty())
    return std::nullopt;
  if (!fs::is_regular_file(options.expectFile))
    throw Error("--expect file '" + options.expectFile + "' does not exist");
  return readFile(options.expectFile);
}

void writeReportFiles(const fs::path &dir, const ReportFiles &files) {
  fs::path out = fs::absolute(dir);
  bool ours = false;
  for (const auto &[name, text] : files)
    ours = ours || fs::exists(out / name);
  if (fs::exists(out) && !fs::is_directory(out))
    throw Error("--out '" + out.string() + "' is not a directory");
  if (fs::exists(out) && !fs::is_empty(out) && !ours)
    throw Error("--out '" + out.string() +
                "' is not empty and holds no rootline report; choose a new directory");
  fs::create_directories(out);
  for (const auto &[name, text] : files) {
    fs::create_directories((out / name).parent_path());
    writeFileAtomic(out / name, text);
  }
}

ReportFiles debugReportFiles(const DebugReport &report) {
  ReportFiles files = {{"report.json", jsonText(reportJson(report))},
                       {"report.md", reportMarkdown(report)},
                       {"report.sarif", jsonText(reportSarif(report))},
                       {"report.html", reportHtml(report)}};
  if (report.unitTest) // the differential unit test, ready to commit with the fix
    files.emplace_back(report.unitTest->fileName, report.unitTest->source);
  if (report.localComposition) // local Darwin's harness, to rerun its alternatives
    files.emplace_back(report.localComposition->harnessFile, report.localComposition->source);
  return files;
}

} // namespace rootline::cli
