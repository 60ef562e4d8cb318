// A program the project's build linked, as rootline needs it: its units' bitcode (named
// in the program's own `.rootline_bc` section), one module, an instrumented executable
// linked like the project linked the program, and the project's own binary.
#include "rootline/error.h"
#include "rootline/project.h"

#include <llvm/Object/ObjectFile.h>

#include <set>
#include <sstream>

namespace rootline {

namespace {

bool startsWith(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

bool isSourceFile(const std::string &arg) {
  for (const char *ext : {".c", ".i", ".cc", ".cpp", ".cxx", ".C", ".s", ".S", ".m"})
    if (arg.size() > strlen(ext) && arg.ends_with(ext))
      return true;
  return false;
}

// A path the build gave (relative to the link's directory, or absolute under the work
// path) as a path into the version's home.
std::string inHome(const std::string &arg, const fs::path &linkDir, const fs::path &home) {
  fs::path p = fs::path(arg).is_absolute() ? fs::path(arg) : linkDir / arg;
  p = p.lexically_normal();
  fs::path rel = p.lexically_relative(projectWorkPath());
  if (!rel.empty() && *rel.begin() != "..")
    return (home / rel).string();
  if (fs::path(arg).is_absolute())
    return arg;
  return (home / fs::path(arg)).string(); // relative to the home's link directory
}

// What the project's link line adds to the program's objects, for linking the
// instrumented module in their place: archives, libraries, library paths and linker
// options. Objects whose code is in the module (they carry bitcode), sources, the
// output and compile-only flags are left out.
std::vector<std::string> linkFlagsFor(const ProjectProgram &program, const fs::path &home) {
  std::vector<std::string> out;
  fs::path linkDir = projectWorkPath() / program.linkDir;
  const auto &a = program.linkArgs;
  for (size_t i = 1; i < a.size(); ++i) {
    const std::string &arg = a[i];
    auto takesValue = [&](const char *flag) { return arg == flag && i + 1 < a.size(); };
    if (takesValue("-o") || takesValue("-MF") || takesValue("-MT") || takesValue("-MQ") ||
        takesValue("-include") || takesValue("-isystem") || takesValue("-I") || takesValue("-D") ||
        takesValue("-U") || takesValue("-x")) {
      ++i;
      continue;
    }
    if (takesValue("-L")) {
      out.push_back("-L" + inHome(a[++i], linkDir, home));
      continue;
    }
    if (takesValue("-l")) {
      out.push_back("-l" + a[++i]);
      continue;
    }
    if (startsWith(arg, "-L")) {
      out.push_back("-L" + inHome(arg.substr(2), linkDir, home));
      continue;
    }
    if (startsWith(arg, "-l") || startsWith(arg, "-Wl,") || arg == "-pthread" ||
        arg == "-rdynamic" || startsWith(arg, "-static") || arg == "-no-pie" || arg == "-pie" ||
        arg == "-fopenmp") {
      out.push_back(arg);
      continue;
    }
    if (startsWith(arg, "-"))
      continue; // -O, -g, -W, -I, -D, -std, -f...: compile options, or ours
    if (isSourceFile(arg))
      continue; // compiled by rootline-cc within the link: its code is in the module
    std::string path = inHome(arg, linkDir, home);
    if (arg.ends_with(".o") && !programBitcode(path).empty())
      continue; // its code is in the module
    out.push_back(path);
  }
  return out;
}

} // namespace

std::vector<fs::path> programBitcode(const fs::path &executable) {
  auto obj = llvm::object::ObjectFile::createObjectFile(executable.string());
  if (!obj) {
    llvm::consumeError(obj.takeError());
    return {};
  }
  std::vector<fs::path> out;
  std::set<std::string> seen;
  for (const llvm::object::SectionRef &s : obj->getBinary()->sections()) {
    auto name = s.getName();
    if (!name || *name != ".rootline_bc")
      continue;
    auto contents = s.getContents();
    if (!contents) {
      llvm::consumeError(contents.takeError());
      continue;
    }
    std::istringstream in(contents->str());
    std::string line;
    while (std::getline(in, line)) {
      // The linker pads between the objects' pieces with NUL bytes.
      line.erase(std::remove(line.begin(), line.end(), '\0'), line.end());
      if (!line.empty() && seen.insert(line).second)
        out.emplace_back(line);
    }
  }
  return out;
}

ProjectExecutables programExecutables(const BuiltProject &project, const ProjectProgram &program) {
  for (const auto &bc : program.bitcode)
    if (!fs::exists(bc))
      throw Error("the bitcode of " + program.path + " is missing from the cache ('" + bc.string() +
                      "'); remove '" + project.home.parent_path().string() + "' to rebuild",
                  ExitBadInput);
  ProjectExecutables out;
  BuiltModule module = linkBitcodeModule(program.bitcode);
  out.traced = buildTracedModule(module, linkFlagsFor(program, project.home));
  out.native = project.home / program.path;
  return out;
}

} // namespace rootline
