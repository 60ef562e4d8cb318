// Options shared by subcommands, and the subcommands still to be built.
#include "cli/cli.h"
#include "rootline/error.h"

#include <iostream>

namespace rootline::cli {

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
}

std::optional<fs::path> stdinOption(const std::string &file) {
  if (file.empty())
    return std::nullopt;
  if (!fs::is_regular_file(file))
    throw Error("stdin file '" + file + "' does not exist");
  return fs::absolute(file);
}

namespace {

struct Placeholder {
  const char *name;
  const char *description;
};

const Placeholder kPlaceholders[] = {
    {"bisect", "Find the first bad commit between a good and a bad revision, then root-cause it"},
    {"validate", "Check that a fix restores the old behaviour for the failing input's whole "
                 "partition"},
};

} // namespace

void addPlaceholderCommands(CLI::App &app, Action &action) {
  for (const auto &p : kPlaceholders) {
    CLI::App *cmd = app.add_subcommand(p.name, std::string(p.description) + " [not built yet]");
    cmd->allow_extras();
    std::string name = p.name;
    cmd->callback([&action, name] {
      action = [name] {
        std::cerr << "rootline: '" << name << "' is not built yet in this version\n";
        return static_cast<int>(ExitBadInput);
      };
    });
  }
}

} // namespace rootline::cli
