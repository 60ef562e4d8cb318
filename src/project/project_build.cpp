// The project's own build: each version is copied into a home under the cache, moved
// to the work path, built there with rootline-cc as CC, and moved back. The links the
// build made are read from rootline-cc's log (docs/project.md).
#include "rootline/error.h"
#include "rootline/hash.h"
#include "rootline/process.h"
#include "rootline/project.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace rootline {

namespace {

// Bumped when what a built tree holds changes (the wrapper's recording, the layout).
constexpr const char *kProjectBuildVersion = "rootline-project-v1";

bool present(const fs::path &p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// Calls `fn(rel, path)` for every regular file of a source tree, `.git` left out.
template <typename Fn> void forEachTreeFile(const fs::path &tree, Fn fn) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(
           tree, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec)
      break;
    std::string rel = fs::relative(it->path(), tree, ec).string();
    if (rel == ".git" || rel.starts_with(".git/")) {
      if (it->is_directory(ec))
        it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec))
      fn(rel, it->path());
  }
}

// What identifies a source tree's content cheaply: every file's path, size,
// modification time and inode (a tree from git is written once per commit, so this is
// stable).
std::string treeStamp(const fs::path &tree) {
  Hasher h;
  std::vector<std::string> rows;
  forEachTreeFile(tree, [&](const std::string &rel, const fs::path &path) {
    // The inode too: two trees written in the same second (git trees share one time
    // per tree) may hold a file of the same size that differs.
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0)
      return;
    rows.push_back(rel + "\t" + std::to_string(st.st_size) + "\t" +
                   std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) +
                   "\t" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino));
  });
  std::sort(rows.begin(), rows.end());
  for (const auto &r : rows)
    h.add(r);
  return h.hex();
}

// Copies a tree with its modes and times (make decides what to rebuild by them).
void copyTree(const fs::path &from, const fs::path &to) {
  fs::create_directories(to.parent_path());
  ProcessSpec spec;
  spec.argv = {"/bin/cp", "-a", from.string() + "/.", to.string()};
  spec.timeoutSeconds = kToolSeconds; // a copy that hangs (a stuck mount)
  fs::create_directories(to);
  ProcessResult r = runProcess(spec);
  if (!r.exitedWith(0))
    throw Error("cannot copy '" + from.string() + "' to '" + to.string() +
                "': " + toolFailure(r, "cp", firstErrorLine(r.err)));
}

// Moves a home tree to the work path for as long as it lives, and back.
class TreeAtWorkPath {
public:
  TreeAtWorkPath(const fs::path &home) : home_(home), work_(projectWorkPath()) {
    std::error_code ec;
    fs::remove_all(work_, ec); // left by a job that was killed
    fs::create_directories(work_.parent_path());
    fs::rename(home_, work_);
  }
  ~TreeAtWorkPath() {
    std::error_code ec;
    fs::rename(work_, home_, ec);
  }
  TreeAtWorkPath(const TreeAtWorkPath &) = delete;
  TreeAtWorkPath &operator=(const TreeAtWorkPath &) = delete;

private:
  fs::path home_, work_;
};

bool isElfExecutable(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in.gcount() == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' &&
         magic[3] == 'F' && access(p.c_str(), X_OK) == 0;
}

// The programs of a build, from rootline-cc's link log: each executable linked inside
// the work path that still exists at the end (the last link of a path wins).
std::vector<ProjectProgram> linkedPrograms(const fs::path &logFile, const fs::path &home) {
  std::vector<ProjectProgram> out;
  std::ifstream in(logFile);
  std::string line;
  fs::path work = projectWorkPath();
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || j.value("shared", false))
      continue;
    fs::path output = j.value("output", "");
    fs::path rel = output.lexically_normal().lexically_relative(work);
    if (rel.empty() || *rel.begin() == "..")
      continue;
    ProjectProgram p;
    p.path = rel.string();
    p.name = output.filename().string();
    fs::path cwdRel = fs::path(j.value("cwd", "")).lexically_relative(work);
    p.linkDir = cwdRel.empty() || *cwdRel.begin() == ".." ? "." : cwdRel.string();
    for (const auto &a : j.value("args", nlohmann::json::array()))
      p.linkArgs.push_back(a.get<std::string>());
    std::erase_if(out, [&](const ProjectProgram &q) { return q.path == p.path; });
    out.push_back(std::move(p));
  }
  std::vector<ProjectProgram> kept;
  for (auto &p : out) {
    fs::path exe = home / p.path;
    if (!isElfExecutable(exe))
      continue;
    p.bitcode = programBitcode(exe);
    if (!p.bitcode.empty())
      kept.push_back(std::move(p));
  }
  return kept;
}

// Every regular file of a source tree (not .git) and a digest of its content.
std::map<std::string, std::string> treeContents(const fs::path &tree) {
  std::map<std::string, std::string> out;
  forEachTreeFile(tree, [&](const std::string &rel, const fs::path &path) {
    out[rel] = Hasher().add(readFile(path)).hex();
  });
  return out;
}

// A built home of the same command whose source differs from `now` only in C/C++
// sources (no header, no build file): copied and rebuilt incrementally, it is what a
// full build of `now` would give, since make rebuilds a unit whose source is newer.
// The nearest such home (fewest changed files, at most 64); nullopt if none.
struct NearbyHome {
  fs::path dir;
  std::vector<std::string> changed, removed;
};
std::optional<NearbyHome> nearbyHome(const std::string &command,
                                     const std::map<std::string, std::string> &now) {
  static const std::set<std::string> kUnits = {".c", ".cc", ".cpp", ".cxx"};
  std::optional<NearbyHome> best;
  std::error_code ec;
  fs::path root = cacheRoot() / "project";
  for (const auto &e : fs::directory_iterator(root, ec)) {
    fs::path dir = e.path();
    if (!present(dir / "programs.json") || !present(dir / "sources.json") ||
        !present(dir / "command.txt") || readFile(dir / "command.txt") != command)
      continue;
    NearbyHome h{dir, {}, {}};
    bool usable = true;
    try {
      auto then = nlohmann::json::parse(readFile(dir / "sources.json"))
                      .get<std::map<std::string, std::string>>();
      for (const auto &[path, digest] : now) {
        auto it = then.find(path);
        if (it == then.end() || it->second != digest) {
          h.changed.push_back(path);
          usable = usable && kUnits.count(fs::path(path).extension().string());
        }
      }
      for (const auto &[path, digest] : then)
        if (!now.count(path)) {
          h.removed.push_back(path);
          usable = false; // a removed file may be named by the build files
        }
    } catch (const std::exception &) {
      usable = false;
    }
    if (!usable || h.changed.size() > 64)
      continue;
    if (!best || h.changed.size() < best->changed.size())
      best = std::move(h);
  }
  return best;
}

// The real C++ compiler for the wrapper: ROOTLINE_CXX_REAL, else clang++ beside clang.
std::string cxxRealPath() {
  if (const char *c = getenv("ROOTLINE_CXX_REAL"); c && *c)
    return c;
  fs::path besideClang = fs::path(clangPath()).parent_path() / "clang++";
  return present(besideClang) ? besideClang.string() : "clang++-19";
}

// Whether a build's output holds a diagnostic of the code. A build that failed without
// one failed for another reason, such as a parallel make's race (two rules running the
// same generator: "sed: can't read y.tab.c", then "'parse.h' file not found").
bool hasCodeDiagnostic(const std::string &log) {
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (isCodeDiagnostic(line))
      return true;
  return false;
}

// Runs a build command in `home`, moved to the work path for the time, with rootline-cc
// as the compiler (the caller holds the work path's lock). `nativeOnly`: the wrapper
// makes no bitcode (a build whose program only runs natively).
ProcessResult runBuildAtWorkPath(const fs::path &home, const std::string &command,
                                 const fs::path &linkLog, double timeoutSeconds,
                                 bool nativeOnly = false) {
  fs::path store = cacheRoot() / "build" / "cc";
  fs::create_directories(store);
  TreeAtWorkPath at(home);
  fs::path wrapper = ccWrapperPath();
  fs::path cxx = wrapper.parent_path() / "rootline-c++";
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", command};
  spec.workDir = projectWorkPath().string();
  spec.timeoutSeconds = timeoutSeconds;
  spec.noAddressRandomization = false;
  spec.extraEnv["CC"] = wrapper.string();
  spec.extraEnv["CXX"] = present(cxx) ? cxx.string() : "clang++-19";
  spec.extraEnv["ROOTLINE_CC_STORE"] = store.string();
  spec.extraEnv["ROOTLINE_CC_LOG"] = linkLog.string();
  spec.extraEnv["ROOTLINE_CC_REAL"] = clangPath();
  // The C++ compiler by its own name, found before the compiler names go first on PATH.
  spec.extraEnv["ROOTLINE_CXX_REAL"] = cxxRealPath();
  spec.extraEnv["PATH"] =
      pathWithCompilerNames(compilerNamesDir(wrapper, store.parent_path() / "compiler-names"));
  spec.extraEnv["ROOTLINE_CC_PREFIX_MAP"] = projectWorkPath().string() + "=" + home.string();
  if (nativeOnly)
    spec.extraEnv["ROOTLINE_CC_NATIVE_ONLY"] = "1";
  ProcessResult r = runProcess(spec);
  if (r.exitedWith(0) || r.timedOut || hasCodeDiagnostic(r.err + r.out))
    return r;
  // Once more, on what the first run made: a race does not come back alike; a real
  // failure fails again, now with the build's own words.
  ProcessResult again = runProcess(spec);
  again.out =
      r.out + "\n# the build failed without a diagnostic of the code: run once more\n" + again.out;
  again.err = r.err + again.err;
  return again;
}

nlohmann::json programsJson(const std::vector<ProjectProgram> &programs) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto &p : programs) {
    nlohmann::json bc = nlohmann::json::array();
    for (const auto &b : p.bitcode)
      bc.push_back(b.string());
    a.push_back({{"name", p.name},
                 {"path", p.path},
                 {"link_dir", p.linkDir},
                 {"link_args", p.linkArgs},
                 {"bitcode", bc}});
  }
  return a;
}

std::vector<ProjectProgram> programsFromJson(const nlohmann::json &a) {
  std::vector<ProjectProgram> out;
  for (const auto &j : a) {
    ProjectProgram p;
    p.name = j.at("name");
    p.path = j.at("path");
    p.linkDir = j.at("link_dir");
    p.linkArgs = j.at("link_args").get<std::vector<std::string>>();
    for (const auto &b : j.at("bitcode"))
      p.bitcode.push_back(b.get<std::string>());
    out.push_back(std::move(p));
  }
  return out;
}

} // namespace

fs::path projectWorkPath() {
  if (const char *w = getenv("ROOTLINE_WORK_DIR"); w && *w)
    return fs::absolute(w) / "tree";
  return cacheRoot() / "work" / "tree";
}

WorkPathLock::WorkPathLock(Progress *progress) {
  fs::path lock = projectWorkPath().parent_path() / "tree.lock";
  fs::create_directories(lock.parent_path());
  fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw Error("cannot open the work path's lock '" + lock.string() + "'");
  if (flock(fd_, LOCK_EX | LOCK_NB) == 0)
    return;
  if (progress)
    progress->update("waiting for another rootline job to release " + projectWorkPath().string());
  if (flock(fd_, LOCK_EX) != 0)
    throw Error("cannot lock the work path '" + lock.string() + "'");
}

WorkPathLock::~WorkPathLock() {
  if (fd_ >= 0)
    close(fd_); // releases the lock
}

std::string detectBuildCommand(const fs::path &tree) {
  std::string make = "make -j" + std::to_string(std::max(1u, std::thread::hardware_concurrency()));
  if (present(tree / "configure"))
    return "./configure && " + make;
  if (present(tree / "configure.ac") || present(tree / "configure.in"))
    return "autoreconf -fi && ./configure && " + make;
  if (present(tree / "CMakeLists.txt"))
    return "cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug && cmake --build build -j" +
           std::to_string(std::max(1u, std::thread::hardware_concurrency()));
  if (present(tree / "meson.build"))
    return "meson setup build && meson compile -C build";
  for (const char *m : {"GNUmakefile", "makefile", "Makefile"})
    if (present(tree / m))
      return make;
  return "";
}

fs::path ccWrapperPath() {
  if (const char *w = getenv("ROOTLINE_CC_WRAPPER"); w && *w)
    return w;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path &candidate :
       {self.parent_path() / "rootline-cc", self.parent_path().parent_path() / "rootline-cc"})
    if (!ec && present(candidate))
      return candidate;
  throw Error("rootline-cc, the compiler wrapper, is not installed beside rootline", ExitInternal);
}

BuiltProject buildProject(const fs::path &sourceTree, const std::string &label,
                          const ProjectBuildOptions &options) {
  auto start = std::chrono::steady_clock::now();
  BuiltProject out;
  out.label = label;
  out.command = options.command.empty() ? detectBuildCommand(sourceTree) : options.command;
  if (out.command.empty())
    throw Error("the " + label +
                " version has no configure, CMakeLists.txt, meson.build or "
                "Makefile; say how it builds with --build 'CMD'");
  Hasher key;
  key.add(kProjectBuildVersion).add(out.command).add(treeStamp(sourceTree)).add(clangPath());
  fs::path dir = cacheRoot() / "project" / key.hex().substr(0, 32);
  out.home = dir / "tree";
  out.log = dir / "build.log";
  fs::path done = dir / "programs.json", failed = dir / "failed.txt";
  auto finish = [&] {
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  };
  // Looked up again under the lock: another job may have built it meanwhile, and a
  // built home is never removed while a job may use it.
  auto cached = [&] {
    if (present(failed))
      throw Error(readFile(failed), ExitBadInput);
    if (!present(done))
      return false;
    out.programs = programsFromJson(nlohmann::json::parse(readFile(done)));
    out.cacheHit = true;
    return true;
  };
  if (cached())
    return finish();
  if (options.progress)
    options.progress->stage("build", label + ": " + out.command);
  WorkPathLock lock(options.progress);
  if (cached())
    return finish();
  std::error_code ec;
  std::map<std::string, std::string> contents = treeContents(sourceTree);
  fs::path links = dir / "links.jsonl";
  // A nearby commit's built tree, rebuilt incrementally; else (or if that fails) the
  // whole build.
  std::optional<ProcessResult> built;
  if (auto near = nearbyHome(out.command, contents)) {
    fs::remove_all(dir, ec);
    copyTree(near->dir / "tree", out.home);
    fs::copy_file(near->dir / "links.jsonl", links, fs::copy_options::overwrite_existing, ec);
    for (const auto &path : near->changed) {
      fs::remove(out.home / path, ec); // a fresh file: newer than what was built from it
      fs::create_directories((out.home / path).parent_path(), ec);
      fs::copy_file(sourceTree / path, out.home / path, ec);
    }
    std::string command = incrementalCommand(out.command);
    if (options.progress)
      options.progress->stage("build", label + ": " + command + " (from a nearby build, " +
                                           std::to_string(near->changed.size()) +
                                           " changed source file(s))");
    ProcessResult r = runBuildAtWorkPath(out.home, command, links, options.timeoutSeconds);
    if (r.exitedWith(0)) {
      writeFileAtomic(out.log,
                      "$ " + command + "  # from " + near->dir.string() + "\n" + r.out + r.err);
      built = r;
      out.reusedFrom = near->dir.string();
    }
  }
  if (!built) {
    fs::remove_all(dir, ec);
    copyTree(sourceTree, out.home);
    built = runBuildAtWorkPath(out.home, out.command, links, options.timeoutSeconds);
    writeFileAtomic(out.log, "$ " + out.command + "\n" + built->out + built->err);
  }
  const ProcessResult &r = *built;
  if (!r.exitedWith(0)) {
    std::string why = r.timedOut ? "timed out" : firstErrorLine(r.err + r.out);
    std::string msg = "the " + label + " version does not build: '" + out.command + "' failed" +
                      (why.empty() ? "" : ": " + why) + " (log: " + out.log.string() + ")";
    writeFileAtomic(failed, msg);
    throw Error(msg, ExitBadInput);
  }
  out.programs = linkedPrograms(links, out.home);
  if (out.programs.empty())
    throw Error("the " + label + " version built, but '" + out.command +
                    "' linked no C program through rootline-cc (does the build honour $CC?)",
                ExitBadInput);
  writeFileAtomic(dir / "sources.json", nlohmann::json(contents).dump());
  writeFileAtomic(dir / "command.txt", out.command);
  writeFileAtomic(done, programsJson(out.programs).dump(1));
  return finish();
}

std::string incrementalCommand(const std::string &buildCommand) {
  size_t at = buildCommand.rfind("&&");
  std::string last = at == std::string::npos ? buildCommand : buildCommand.substr(at + 2);
  size_t b = last.find_first_not_of(" \t"), e = last.find_last_not_of(" \t");
  return b == std::string::npos ? buildCommand : last.substr(b, e - b + 1);
}

namespace {

// Builds the variant (or finds it in the cache): its tree.
fs::path variantHome(const BuiltProject &base, const std::map<std::string, std::string> &files,
                     double timeoutSeconds) {
  Hasher key;
  key.add(kProjectBuildVersion).add("variant-v2").add(base.home.string());
  for (const auto &[path, text] : files)
    key.add(path).add(text);
  fs::path dir = cacheRoot() / "project-variants" / key.hex().substr(0, 32);
  fs::path home = dir / "tree", done = dir / "built", failed = dir / "failed.txt";
  auto cached = [&] {
    if (present(failed))
      throw Error(readFile(failed), ExitBadInput);
    return present(done);
  };
  if (cached())
    return home;
  WorkPathLock lock;
  if (cached()) // another job built it meanwhile
    return home;
  std::error_code ec;
  fs::remove_all(dir, ec);
  copyTree(base.home, home);
  for (const auto &[path, text] : files) {
    fs::path rel = fs::path(path).lexically_normal();
    if (rel.is_absolute() || (!rel.empty() && *rel.begin() == ".."))
      throw Error("a revert trial names a file outside the tree: " + path, ExitInternal);
    fs::remove(home / rel, ec); // a fresh file: newer than what was built from it
    writeFileAtomic(home / rel, text);
  }
  std::string command = incrementalCommand(base.command);
  // Revert trials run the variant natively: its units need no bitcode, which would
  // double every compile of a trial.
  ProcessResult r =
      runBuildAtWorkPath(home, command, dir / "links.jsonl", timeoutSeconds, /*nativeOnly=*/true);
  writeFileAtomic(dir / "build.log", "$ " + command + "\n" + r.out + r.err);
  if (!r.exitedWith(0)) {
    // Paths in the build's messages are the work path's: name them relative to the tree.
    std::string error = firstErrorLine(r.err + r.out);
    for (std::string at = projectWorkPath().string() + "/"; error.find(at) != std::string::npos;)
      error.erase(error.find(at), at.size());
    std::string msg = "the variant does not build: '" + command + "' failed: " + error;
    writeFileAtomic(failed, msg);
    throw Error(msg, ExitBadInput);
  }
  writeFileAtomic(done, "");
  return home;
}

} // namespace

fs::path buildProjectVariant(const BuiltProject &base,
                             const std::map<std::string, std::string> &files,
                             const std::string &programPath, double timeoutSeconds) {
  fs::path home = variantHome(base, files, timeoutSeconds);
  // The variant's own binary, with its own shared libraries when it links the project's.
  for (const ProjectProgram &p : base.programs)
    if (p.path == programPath)
      return nativeExecutable(p, home);
  return home / programPath;
}

BuiltProject buildProjectVariantTree(const BuiltProject &base,
                                     const std::map<std::string, std::string> &files,
                                     double timeoutSeconds) {
  BuiltProject variant = base;
  variant.home = variantHome(base, files, timeoutSeconds);
  variant.label = base.label + " with the trial's files";
  variant.log = variant.home.parent_path() / "build.log";
  variant.reusedFrom = base.home.string();
  return variant;
}

const ProjectProgram &selectProgram(const BuiltProject &project, const std::string &target) {
  std::vector<const ProjectProgram *> hits;
  for (const auto &p : project.programs)
    if (target.empty() || p.name == target || p.path == target)
      hits.push_back(&p);
  if (hits.size() == 1)
    return *hits[0];
  std::string list;
  for (const auto &p : project.programs)
    list += (list.empty() ? "" : ", ") + p.path;
  if (hits.empty())
    throw Error("the " + project.label + " version builds no program '" + target +
                "'; it builds: " + list);
  throw Error("the " + project.label + " version builds " +
              std::to_string(project.programs.size()) + " programs: " + list +
              "; choose one with --target NAME");
}

} // namespace rootline
