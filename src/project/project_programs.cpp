// A program the project's build linked, as rootline needs it: its units' bitcode (named
// in the program's own `.rootline_bc` section), one module, an instrumented executable
// linked like the project linked the program, and the project's own binary.
#include "rootline/error.h"
#include "rootline/process.h"
#include "rootline/project.h"

#include <llvm/Object/ObjectFile.h>

#include <algorithm>
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

bool insideHome(const fs::path &p, const fs::path &home) {
  fs::path rel = p.lexically_normal().lexically_relative(home.lexically_normal());
  return !rel.empty() && *rel.begin() != "..";
}

bool sharedLibraryName(const std::string &arg) {
  std::string name = fs::path(arg).filename().string();
  return name.ends_with(".so") || name.find(".so.") != std::string::npos;
}

// The link's shared libraries of the project, each with the argument(s) naming it: a
// path (`../lib/.libs/libkv.so`) or `-lkv` found in a -L directory of the tree.
struct LinkedLibrary {
  fs::path file; // in `home`
  size_t arg;    // index in linkArgs ("-l" "kv" as two: the first)
};
std::vector<LinkedLibrary> linkedProjectLibraries(const ProjectProgram &program,
                                                  const fs::path &home) {
  std::vector<LinkedLibrary> out;
  std::vector<fs::path> dirs; // the -L directories inside the tree, in order
  fs::path linkDir = projectWorkPath() / program.linkDir;
  const auto &a = program.linkArgs;
  for (size_t i = 1; i < a.size(); ++i) {
    const std::string &arg = a[i];
    if ((arg == "-L" || arg == "-l") && i + 1 < a.size()) {
      std::string value = a[i + 1];
      if (arg == "-L")
        dirs.push_back(inHome(value, linkDir, home));
      else
        for (const fs::path &d : dirs)
          if (fs::exists(d / ("lib" + value + ".so"))) {
            out.push_back({d / ("lib" + value + ".so"), i});
            break;
          }
      ++i;
    } else if (startsWith(arg, "-L")) {
      dirs.push_back(inHome(arg.substr(2), linkDir, home));
    } else if (startsWith(arg, "-l")) {
      for (const fs::path &d : dirs)
        if (fs::exists(d / ("lib" + arg.substr(2) + ".so"))) {
          out.push_back({d / ("lib" + arg.substr(2) + ".so"), i});
          break;
        }
    } else if (!startsWith(arg, "-") && sharedLibraryName(arg)) {
      fs::path file = inHome(arg, linkDir, home);
      if (fs::exists(file))
        out.push_back({file, i});
    }
  }
  std::erase_if(out, [&](const LinkedLibrary &l) { return !insideHome(l.file, home); });
  return out;
}

// What the project's link line adds to the program's objects, for linking the
// instrumented module in their place: archives, libraries, library paths and linker
// options. Objects whose code is in the module (they carry bitcode), the project's
// shared libraries whose code is in the module too, sources, the output and
// compile-only flags are left out. A project library without bitcode stays, found at
// run time by an RPATH into the home.
std::vector<std::string> linkFlagsFor(const ProjectProgram &program, const fs::path &home) {
  std::vector<std::string> out;
  std::set<size_t> inModule;
  for (const LinkedLibrary &l : linkedProjectLibraries(program, home)) {
    if (!programBitcode(l.file).empty())
      inModule.insert(l.arg);
    else
      out.push_back("-Wl,-rpath," + fs::canonical(l.file).parent_path().string());
  }
  fs::path linkDir = projectWorkPath() / program.linkDir;
  const auto &a = program.linkArgs;
  for (size_t i = 1; i < a.size(); ++i) {
    const std::string &arg = a[i];
    auto takesValue = [&](const char *flag) { return arg == flag && i + 1 < a.size(); };
    if (inModule.count(i)) {
      i += arg == "-l"; // its value too
      continue;
    }
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

std::vector<fs::path> projectSharedLibraries(const ProjectProgram &program, const fs::path &home) {
  std::vector<fs::path> out;
  for (const LinkedLibrary &l : linkedProjectLibraries(program, home))
    out.push_back(l.file);
  return out;
}

fs::path nativeExecutable(const ProjectProgram &program, const fs::path &home) {
  fs::path exe = home / program.path;
  std::vector<fs::path> libs = projectSharedLibraries(program, home);
  if (libs.empty())
    return exe;
  // In the build tree a wrapper (libtool's `src/prog` script) or the test's environment
  // points the loader at the libraries; a copy with an RPATH into the home runs alone.
  std::string rpath;
  std::set<std::string> seen;
  for (const fs::path &l : libs) {
    std::string dir = fs::canonical(l).parent_path().string();
    if (seen.insert(dir).second)
      rpath += (rpath.empty() ? "" : ":") + dir;
  }
  fs::path copy = exe.string() + ".rootline-native";
  std::error_code ec;
  if (fs::exists(copy, ec) && fs::last_write_time(copy, ec) >= fs::last_write_time(exe, ec))
    return copy;
  fs::path partial = copy.string() + ".part";
  fs::copy_file(exe, partial, fs::copy_options::overwrite_existing);
  ProcessSpec spec;
  // DT_RPATH (not RUNPATH): it also serves the libraries' own project dependencies.
  spec.argv = {"/usr/bin/env", "patchelf", "--force-rpath", "--set-rpath", rpath, partial.string()};
  spec.timeoutSeconds = 60; // a file edit; never unbounded
  ProcessResult r = runProcess(spec);
  if (r.exitedWith(127)) // env found no patchelf
    throw Error(program.path + " links the project's shared libraries; running it needs " +
                    "patchelf (scripts/setup.sh installs it)",
                ExitBadInput);
  if (!r.exitedWith(0))
    throw Error("patchelf cannot set the library path of " + program.path + ": " +
                (r.err + r.out).substr(0, (r.err + r.out).find('\n')));
  fs::rename(partial, copy);
  return copy;
}

ProjectExecutables programExecutables(const BuiltProject &project, const ProjectProgram &program) {
  for (const auto &bc : program.bitcode)
    if (!fs::exists(bc))
      throw Error("the bitcode of " + program.path + " is missing from the cache ('" + bc.string() +
                      "'); remove '" + project.home.parent_path().string() + "' to rebuild",
                  ExitBadInput);
  ProjectExecutables out;
  // The project's shared libraries' units join the module: the trace sees their code.
  std::vector<fs::path> bitcode = program.bitcode;
  for (const fs::path &lib : projectSharedLibraries(program, project.home))
    for (const fs::path &bc : programBitcode(lib))
      if (std::find(bitcode.begin(), bitcode.end(), bc) == bitcode.end() && fs::exists(bc))
        bitcode.push_back(bc);
  BuiltModule module = linkBitcodeModule(bitcode);
  out.traced = buildTracedModule(module, linkFlagsFor(program, project.home));
  out.native = nativeExecutable(program, project.home);
  return out;
}

} // namespace rootline
