// Where sources and flags come from: the command line, rootline.json,
// compile_commands.json, or the project directory's own .c files.
#include "rootline/build.h"
#include "rootline/error.h"

#include <algorithm>
#include <regex>
#include <set>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/StringSaver.h>
#include <nlohmann/json.hpp>

namespace rootline {

using nlohmann::json;

std::vector<std::string> splitFlags(const std::string &flags) {
  llvm::BumpPtrAllocator alloc;
  llvm::StringSaver saver(alloc);
  llvm::SmallVector<const char *, 16> argv;
  llvm::cl::TokenizeGNUCommandLine(flags, saver, argv);
  return {argv.begin(), argv.end()};
}

namespace {

fs::path absoluteFrom(const fs::path &base, const std::string &p) {
  fs::path path(p);
  return (path.is_absolute() ? path : base / path).lexically_normal();
}

void requireSourcesExist(const BuildRecipe &recipe) {
  if (recipe.units.empty())
    throw Error("no source files to build (" + recipe.origin + ")");
  for (const auto &u : recipe.units)
    if (!fs::is_regular_file(u.source))
      throw Error("source file '" + u.source.string() + "' does not exist (" + recipe.origin + ")");
}

json parseJsonFile(const fs::path &path) {
  std::string text = readFile(path);
  try {
    return json::parse(text);
  } catch (const json::exception &e) {
    throw Error("'" + path.string() + "' is not valid JSON: " + e.what());
  }
}

// Keeps only the flags that matter for compiling one file to bitcode.
std::vector<std::string> relevantFlags(const std::vector<std::string> &args) {
  std::vector<std::string> out;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto takesValue = [&](const char *flag) { return a == flag && i + 1 < args.size(); };
    if (takesValue("-I") || takesValue("-D") || takesValue("-U") || takesValue("-include") ||
        takesValue("-isystem")) {
      out.push_back(a);
      out.push_back(args[++i]);
    } else if (a.rfind("-I", 0) == 0 || a.rfind("-D", 0) == 0 || a.rfind("-U", 0) == 0 ||
               a.rfind("-std=", 0) == 0 || a.rfind("-isystem", 0) == 0 ||
               (a.rfind("-f", 0) == 0 && a.find("sanitize") == std::string::npos)) {
      out.push_back(a);
    }
  }
  return out;
}

} // namespace

BuildRecipe recipeFromProjectFile(const fs::path &jsonPath, const fs::path &baseDir) {
  json j = parseJsonFile(jsonPath);
  fs::path base = baseDir.empty() ? fs::absolute(jsonPath).parent_path() : fs::absolute(baseDir);
  BuildRecipe recipe;
  recipe.origin = jsonPath.string();
  if (!j.is_object() || !j.contains("sources") || !j["sources"].is_array())
    throw Error("'" + jsonPath.string() + "' needs a \"sources\" array");
  std::vector<std::string> cflags;
  try {
    if (j.contains("cflags")) // an array, or one string split like a shell would
      cflags = j["cflags"].is_string() ? splitFlags(j["cflags"].get<std::string>())
                                       : j["cflags"].get<std::vector<std::string>>();
    if (j.contains("libs"))
      recipe.libs = j["libs"].get<std::vector<std::string>>();
    for (const auto &s : j["sources"])
      recipe.units.push_back({absoluteFrom(base, s.get<std::string>()), cflags, base});
  } catch (const json::exception &e) {
    throw Error("'" + jsonPath.string() + "': " + e.what());
  }
  requireSourcesExist(recipe);
  return recipe;
}

namespace {

// Whether a C file defines `main` (a definition, not a declaration or a call).
bool definesMain(const fs::path &file) {
  static const std::regex mainDef(R"((^|[\s;}])(int|void)?\s*\bmain\s*\([^;{)]*\)\s*\{)");
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    return false;
  std::string text = readFile(file);
  return std::regex_search(text, mainDef);
}

// One compilation database entry as the program selection sees it.
struct Entry {
  TranslationUnit unit;
  fs::path output; // -o, else empty
  bool links = false; // compiled and linked in one command (no -c): output is a program
  bool hasMain = false;
  std::vector<std::string> libs; // -l flags of the command
};

// The program an entry with `main` builds: the executable it links (its output is no
// object file; bear records `cc -o prog main.c lib.o` that way, with -c added), the
// CMake target whose object directory holds its output (`CMakeFiles/NAME.dir/`), else
// the file's stem.
std::string programOf(const Entry &e) {
  std::string ext = e.output.extension().string();
  if (!e.output.empty() && (e.links || (ext != ".o" && ext != ".obj")))
    return e.output.filename().string();
  for (const auto &part : e.output)
    if (part.extension() == ".dir")
      return part.stem().string();
  return e.unit.source.stem().string();
}

} // namespace

BuildRecipe recipeFromCompileCommands(const fs::path &jsonPath, const std::string &target) {
  json j = parseJsonFile(jsonPath);
  BuildRecipe recipe;
  recipe.origin = jsonPath.string();
  if (!j.is_array())
    throw Error("'" + jsonPath.string() + "' is not a compilation database array");
  std::vector<Entry> entries;
  std::set<fs::path> seen;
  try {
    for (const auto &entry : j) {
      if (!entry.is_object() || !entry.contains("file") || !entry.contains("directory"))
        continue;
      fs::path dir = entry["directory"].get<std::string>();
      fs::path file = absoluteFrom(dir, entry["file"].get<std::string>());
      if (file.extension() != ".c" || !seen.insert(file).second)
        continue; // a file built twice (debug and release) joins once
      std::vector<std::string> args;
      if (entry.contains("arguments"))
        args = entry["arguments"].get<std::vector<std::string>>();
      else if (entry.contains("command"))
        args = splitFlags(entry["command"].get<std::string>());
      Entry e{{file, relevantFlags(args), dir}, {}, true, false, {}};
      for (size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "-c" || args[i] == "-S" || args[i] == "-E")
          e.links = false;
        else if (args[i] == "-o" && i + 1 < args.size())
          e.output = absoluteFrom(dir, args[++i]);
        else if (args[i].rfind("-l", 0) == 0 && args[i].size() > 2)
          e.libs.push_back(args[i].substr(2)); // the program links it
      }
      if (entry.contains("output") && entry["output"].is_string())
        e.output = absoluteFrom(dir, entry["output"].get<std::string>());
      e.hasMain = definesMain(file);
      entries.push_back(std::move(e));
    }
  } catch (const json::exception &e) {
    throw Error("'" + jsonPath.string() + "': " + e.what());
  }
  std::vector<const Entry *> mains;
  for (const auto &e : entries)
    if (e.hasMain)
      mains.push_back(&e);
  auto programs = [&] {
    std::string list;
    for (const Entry *m : mains)
      list += (list.empty() ? "" : ", ") + programOf(*m) + " (" +
              m->unit.source.filename().string() + ")";
    return list;
  };
  bool anyOwned = false;
  for (const auto &e : entries) {
    bool owned = e.hasMain && !target.empty() &&
                 (programOf(e) == target || e.unit.source.stem() == target ||
                  e.unit.source.filename() == target);
    anyOwned |= owned;
    if (!e.hasMain || owned || (target.empty() && mains.size() <= 1)) {
      recipe.units.push_back(e.unit);
      for (const auto &l : e.libs)
        if (std::find(recipe.libs.begin(), recipe.libs.end(), l) == recipe.libs.end())
          recipe.libs.push_back(l);
    }
  }
  if (!target.empty() && !anyOwned)
    throw Error("no entry of '" + jsonPath.string() + "' builds a program named '" + target +
                "'" + (mains.empty() ? "" : "; its programs: " + programs()));
  if (target.empty() && mains.size() > 1)
    throw Error("'" + jsonPath.string() + "' builds " + std::to_string(mains.size()) +
                " programs: " + programs() + "; choose one with --target NAME");
  requireSourcesExist(recipe);
  return recipe;
}

std::optional<fs::path> projectRecipeFile(const fs::path &projectDir) {
  for (fs::path f : {projectDir / "rootline.json", projectDir / "compile_commands.json",
                     projectDir / "build" / "compile_commands.json"})
    if (fs::exists(f))
      return f;
  return std::nullopt;
}

// A directory without a project file: its own .c files (not subdirectories') make the
// program, as `cc *.c` would.
BuildRecipe recipeFromDirectory(const fs::path &project) {
  BuildRecipe recipe;
  recipe.origin = "the .c files in '" + project.string() + "'";
  std::vector<fs::path> sources;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(project, ec))
    if (e.is_regular_file() && e.path().extension() == ".c")
      sources.push_back(e.path());
  if (sources.empty())
    throw Error("no sources given: pass --src FILE..., or add rootline.json or "
                "compile_commands.json to '" +
                project.string() + "' (it has no .c files of its own either)");
  std::sort(sources.begin(), sources.end());
  for (const auto &s : sources)
    recipe.units.push_back({s, {}, project});
  return recipe;
}

// --recipe FILE for a tree without a project file of its own: a compile_commands.json's
// paths are re-rooted from where it was recorded into the tree; a rootline.json's
// relative sources are the tree's.
static BuildRecipe recipeFromFile(const RecipeRequest &request, const fs::path &tree) {
  const fs::path &file = request.recipeFile;
  if (!fs::is_regular_file(file))
    throw Error("--recipe file '" + file.string() + "' does not exist");
  json j = parseJsonFile(file);
  if (j.is_object())
    return recipeFromProjectFile(file, tree);
  BuildRecipe r = recipeFromCompileCommands(file, request.target);
  fs::path base = request.recipeBase.empty() ? fs::absolute(file).parent_path()
                                             : fs::absolute(request.recipeBase);
  r = rebaseRecipe(r, base, tree);
  requireSourcesExist(r);
  return r;
}

BuildRecipe resolveRecipe(const RecipeRequest &request) {
  fs::path project = fs::absolute(request.projectDir);
  BuildRecipe recipe;
  if (!request.sources.empty()) {
    recipe.origin = "command line";
    fs::path cwd = fs::current_path();
    auto flags = splitFlags(request.cflags);
    for (const auto &s : request.sources)
      recipe.units.push_back({absoluteFrom(cwd, s), flags, cwd});
    requireSourcesExist(recipe);
  } else if (auto file = projectRecipeFile(project)) {
    recipe = file->filename() == "rootline.json" ? recipeFromProjectFile(*file)
                                                 : recipeFromCompileCommands(*file, request.target);
  } else if (!request.recipeFile.empty()) {
    recipe = recipeFromFile(request, project);
  } else {
    recipe = recipeFromDirectory(project);
  }
  if (!request.sources.empty() || recipe.libs.empty())
    recipe.libs.insert(recipe.libs.end(), request.libs.begin(), request.libs.end());
  if (!request.cflags.empty() && request.sources.empty())
    for (auto &u : recipe.units)
      for (const auto &f : splitFlags(request.cflags))
        u.flags.push_back(f);
  return recipe;
}

BuildRecipe rebaseRecipe(const BuildRecipe &recipe, const fs::path &from, const fs::path &to) {
  // Both sides normalised: `files/../new/main.c` lies in `files/../new`.
  fs::path base = fs::absolute(from).lexically_normal();
  auto rebase = [&](const fs::path &p) {
    auto rel = fs::absolute(p).lexically_normal().lexically_relative(base);
    if (rel.empty() || *rel.begin() == "..")
      return p;
    return (to / rel).lexically_normal();
  };
  BuildRecipe out = recipe;
  for (auto &u : out.units) {
    u.source = rebase(u.source);
    u.workDir = rebase(u.workDir);
    for (auto &f : u.flags)
      if (f.rfind("-I", 0) == 0 && f.size() > 2)
        f = "-I" + rebase(fs::path(f.substr(2))).string();
  }
  return out;
}

BuildRecipe resolveRecipeIn(const RecipeRequest &request, const fs::path &root) {
  RecipeRequest r = request;
  r.projectDir = root;
  for (auto &s : r.sources)
    if (fs::path(s).is_relative())
      s = (root / s).string();
  return resolveRecipe(r);
}

} // namespace rootline
