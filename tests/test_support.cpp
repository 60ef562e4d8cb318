#include "test_support.h"

#include "rootline/error.h"
#include "rootline/fs.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <stdexcept>

namespace rootline::test {

using nlohmann::json;

fs::path sourceDir() { return ROOTLINE_SOURCE_DIR; }
fs::path fixturesDir() { return sourceDir() / "fixtures"; }
std::string rootlineBinary() { return ROOTLINE_BINARY; }

namespace {

ProgramFixture parseFixture(const fs::path &dir, const json &j) {
  ProgramFixture f;
  f.name = dir.filename().string();
  f.dir = dir;
  f.sources = j.at("sources").get<std::vector<std::string>>();
  if (j.contains("cflags"))
    f.cflags = j["cflags"].get<std::vector<std::string>>();
  if (j.contains("libs"))
    f.libs = j["libs"].get<std::vector<std::string>>();
  if (j.contains("stdin") && j["stdin"].is_string())
    f.stdinFile = dir / j["stdin"].get<std::string>();
  if (j.contains("args"))
    f.args = j["args"].get<std::vector<std::string>>();
  if (j.contains("exit_code") && j["exit_code"].is_number())
    f.exitCode = j["exit_code"].get<int>();
  if (j.contains("signal") && j["signal"].is_string())
    f.signal = j["signal"].get<std::string>();
  if (j.contains("crash_line") && j["crash_line"].is_object())
    f.crashLine = {j["crash_line"].at("file").get<std::string>(),
                   j["crash_line"].at("line").get<int>()};
  if (j.contains("tags"))
    f.tags = j["tags"].get<std::vector<std::string>>();
  if (fs::exists(dir / "expected.stdout"))
    f.expectedStdout = readFile(dir / "expected.stdout");
  return f;
}

std::vector<fs::path> sortedSubdirs(const fs::path &root) {
  std::vector<fs::path> dirs;
  if (!fs::exists(root))
    return dirs;
  for (const auto &e : fs::directory_iterator(root))
    if (e.is_directory() && fs::exists(e.path() / "fixture.json"))
      dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

} // namespace

BuildRecipe ProgramFixture::recipeIn(const fs::path &root) const {
  BuildRecipe r;
  r.origin = "fixture " + name;
  for (const auto &s : sources)
    r.units.push_back({root / s, cflags, root});
  r.libs = libs;
  return r;
}

bool ProgramFixture::hasTag(const std::string &t) const {
  return std::find(tags.begin(), tags.end(), t) != tags.end();
}

std::vector<ProgramFixture> programFixtures() {
  std::vector<ProgramFixture> out;
  for (const auto &dir : sortedSubdirs(fixturesDir() / "programs"))
    out.push_back(parseFixture(dir, json::parse(readFile(dir / "fixture.json"))));
  return out;
}

ProgramFixture programFixture(const std::string &name) {
  fs::path dir = fixturesDir() / "programs" / name;
  return parseFixture(dir, json::parse(readFile(dir / "fixture.json")));
}

RegressionFixture regressionFixture(const std::string &name) {
  for (auto &r : regressionFixtures())
    if (r.name == name)
      return r;
  throw std::runtime_error("no regression fixture " + name);
}

RegressionFixture regressionFixtureIn(const std::string &corpus, const std::string &name) {
  for (auto &r : regressionFixturesIn(corpus))
    if (r.name == name)
      return r;
  throw std::runtime_error("no " + corpus + " fixture " + name);
}

DebugRequest debugRequest(const RegressionFixture &r, ConditionKind kind) {
  DebugRequest req;
  req.oldRoot = r.dir / "old";
  req.newRoot = r.dir / "new";
  req.oldRecipe = r.program.recipeIn(req.oldRoot);
  req.newRecipe = r.program.recipeIn(req.newRoot);
  req.input.stdinBytes = r.program.stdinFile ? readFile(*r.program.stdinFile) : "";
  req.input.args = r.program.args;
  // Files the program opens (fixtures/diagnoses: `files`, laid out under files/).
  if (r.meta.contains("files"))
    for (const auto &name : r.meta["files"])
      req.input.files[name.get<std::string>()] =
          readFile(r.dir / "files" / name.get<std::string>());
  req.condition = kind;
  return req;
}

std::vector<RegressionFixture> regressionFixtures() { return regressionFixturesIn("regressions"); }

std::vector<RegressionFixture> regressionFixturesIn(const std::string &corpus) {
  std::vector<RegressionFixture> out;
  for (const auto &dir : sortedSubdirs(fixturesDir() / corpus)) {
    if (!fs::exists(dir / "fixture.json"))
      continue;
    json j = json::parse(readFile(dir / "fixture.json"));
    RegressionFixture r;
    r.name = dir.filename().string();
    r.dir = dir;
    r.program = parseFixture(dir, j);
    const json &rc = j.at("root_cause");
    r.rootVersion = rc.at("version").get<std::string>();
    r.rootFile = rc.at("file").get<std::string>();
    r.rootLine = rc.at("line").get<int>();
    r.rootKind = rc.value("kind", "");
    r.oldStdout = j.value("old_stdout", "");
    r.newStdout = j.value("new_stdout", "");
    r.meta = j;
    out.push_back(r);
  }
  return out;
}

TempDir::TempDir() : path(makeWorkDir("test")) {}
TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

void writeText(const fs::path &path, const std::string &text) {
  fs::create_directories(path.parent_path());
  writeFileAtomic(path, text);
}

BuildRecipe sourceRecipe(const fs::path &file, const std::string &source) {
  writeText(file, source);
  return {{{file, {}, file.parent_path()}}, {}, "test"};
}

DebugRequest twoVersions(const fs::path &dir, const std::string &oldMain,
                         const std::string &newMain, const std::string &stdinBytes) {
  DebugRequest req;
  req.oldRecipe = sourceRecipe(dir / "old" / "main.c", oldMain);
  req.newRecipe = sourceRecipe(dir / "new" / "main.c", newMain);
  req.oldRoot = dir / "old";
  req.newRoot = dir / "new";
  req.input.stdinBytes = stdinBytes;
  return req;
}

OwnCacheDir::OwnCacheDir(const fs::path &dir) {
  if (const char *c = std::getenv("ROOTLINE_CACHE_DIR"))
    was = c;
  ::setenv("ROOTLINE_CACHE_DIR", dir.c_str(), 1);
}

OwnCacheDir::~OwnCacheDir() { ::setenv("ROOTLINE_CACHE_DIR", was.c_str(), 1); }

std::string stageNotes(const nlohmann::json &report) {
  std::string notes;
  for (const auto &s : report["stages"])
    notes += s.value("note", "") + "\n";
  return notes;
}

std::string textAt(const nlohmann::json &j, const std::string &pointer) {
  nlohmann::json::json_pointer at(pointer);
  return j.contains(at) && j[at].is_string() ? j[at].get<std::string>() : std::string();
}

ProcessResult runRootline(const std::vector<std::string> &args,
                          std::optional<std::string> stdinFile, double timeout) {
  ProcessSpec spec;
  spec.argv = {rootlineBinary()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.stdinFile = stdinFile;
  spec.timeoutSeconds = timeout;
  return runProcess(spec);
}

json makeHistory(const fs::path &dir, const std::vector<std::string> &options) {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/python3", (fixturesDir() / "git" / "make_history.py").string(),
               dir.string()};
  spec.argv.insert(spec.argv.end(), options.begin(), options.end());
  spec.timeoutSeconds = 120;
  ProcessResult r = runProcess(spec);
  if (!r.exitedWith(0))
    throw std::runtime_error("make_history.py failed: " + r.err);
  return json::parse(r.out);
}

ProcessResult git(const fs::path &repo, const std::vector<std::string> &args) {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/git", "-C", repo.string(), "-c", "commit.gpgsign=false"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.extraEnv = {{"GIT_AUTHOR_NAME", "Rootline Test"},
                   {"GIT_AUTHOR_EMAIL", "test@rootline.invalid"},
                   {"GIT_COMMITTER_NAME", "Rootline Test"},
                   {"GIT_COMMITTER_EMAIL", "test@rootline.invalid"},
                   {"GIT_AUTHOR_DATE", "2025-01-01T00:00:00+0000"},
                   {"GIT_COMMITTER_DATE", "2025-01-01T00:00:00+0000"},
                   {"GIT_CONFIG_GLOBAL", "/dev/null"},
                   {"GIT_CONFIG_NOSYSTEM", "1"}};
  spec.timeoutSeconds = 60;
  return runProcess(spec);
}

std::map<std::string, std::string> snapshotTree(const fs::path &dir) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::path &p = it->path();
    auto st = it->symlink_status();
    std::string rel = p.lexically_relative(dir).string();
    std::string desc = std::to_string(static_cast<int>(st.type())) + " " +
                       std::to_string(static_cast<unsigned>(st.permissions()));
    if (fs::is_symlink(st)) {
      desc += " -> " + fs::read_symlink(p).string();
    } else {
      desc += " " + std::to_string(fs::last_write_time(p).time_since_epoch().count());
      if (fs::is_regular_file(st))
        desc += " " + std::to_string(fs::file_size(p)) + " " +
                std::to_string(std::hash<std::string>{}(readFile(p)));
    }
    out[rel] = desc;
  }
  return out;
}

std::string badInputError(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const Error &e) {
    CHECK(e.exitCode() == ExitBadInput);
    return e.what();
  }
  FAIL("expected an error");
  return {};
}

ProcessResult runProgram(const fs::path &exe, const ProgramFixture &f, double timeout) {
  ProcessSpec spec;
  spec.argv = {exe.string()};
  spec.argv.insert(spec.argv.end(), f.args.begin(), f.args.end());
  if (f.stdinFile)
    spec.stdinFile = f.stdinFile->string();
  spec.timeoutSeconds = timeout;
  return runProcess(spec);
}

InputVar tokenInput(uint64_t offset, uint64_t length, unsigned bits, char conv) {
  InputVar v;
  v.kind = InputVar::Kind::Token;
  v.name = "tok@" + std::to_string(offset) + ":i" + std::to_string(bits);
  v.offset = offset;
  v.length = length;
  v.bits = bits;
  v.conv = conv;
  return v;
}

InputVar stdinByteInput(uint64_t offset) {
  InputVar v;
  v.name = "stdin@" + std::to_string(offset);
  v.offset = offset;
  return v;
}

} // namespace rootline::test
