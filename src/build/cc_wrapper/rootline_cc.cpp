// rootline-cc: the compiler a project's own build runs as CC (docs/build-wrapper.md).
// It compiles and links with the real clang as asked, and records for every C object
// the unit's bitcode (in a content-addressed store, named from a section of the object)
// and for every link its command line. Standard library and POSIX only: it runs once per
// compile, so it must start fast, and it builds without LLVM.
#include "build/cc_wrapper/cc_args.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace fs = std::filesystem;
using namespace rootline::cc;

namespace {

constexpr int ExitBadInput = 2;     // a bad environment variable
constexpr int ExitNoCompiler = 127; // as a shell reports a command it cannot run

// A condition that ends the wrapper with a one-line error.
struct Fatal : std::runtime_error {
  int code;
  Fatal(const std::string &what, int code) : std::runtime_error(what), code(code) {}
};

// Why one unit gets no bitcode; the build goes on without it.
struct NoBitcode : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string env(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}

// SHA-256 (FIPS 180-4) of a byte string, in hex: the store's file names, the same
// digest `sha256sum` prints.
std::string sha256Hex(const std::string &data) {
  static constexpr std::array<uint32_t, 64> k = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
      0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
      0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
      0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
      0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
      0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
      0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
      0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  std::array<uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  std::string msg = data;
  uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  msg += static_cast<char>(0x80);
  while (msg.size() % 64 != 56)
    msg += '\0';
  for (int i = 7; i >= 0; --i)
    msg += static_cast<char>((bits >> (8 * i)) & 0xFF);
  for (std::size_t block = 0; block < msg.size(); block += 64) {
    std::array<uint32_t, 64> w{};
    for (int i = 0; i < 16; ++i)
      for (int b = 0; b < 4; ++b)
        w[i] = (w[i] << 8) | static_cast<unsigned char>(msg[block + 4 * i + b]);
    for (int i = 16; i < 64; ++i) {
      uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::array<uint32_t, 8> v = h;
    for (int i = 0; i < 64; ++i) {
      uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
      uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      uint32_t t1 = v[7] + s1 + ch + k[i] + w[i];
      uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
      uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      uint32_t t2 = s0 + maj;
      v = {t1 + t2, v[0], v[1], v[2], v[3] + t1, v[4], v[5], v[6]};
    }
    for (int i = 0; i < 8; ++i)
      h[i] += v[i];
  }
  static const char *digits = "0123456789abcdef";
  std::string out;
  for (uint32_t word : h)
    for (int shift = 28; shift >= 0; shift -= 4)
      out += digits[(word >> shift) & 0xF];
  return out;
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw NoBitcode("cannot read '" + path.string() + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeFile(const fs::path &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush())
    throw NoBitcode("cannot write '" + path.string() + "'");
}

// The program `name` runs as: itself when it names a path, else its first match in PATH.
std::string findProgram(const std::string &name) {
  if (name.find('/') != std::string::npos)
    return access(name.c_str(), X_OK) == 0 ? name : "";
  std::string path = env("PATH");
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos)
      end = path.size();
    std::string dir = path.substr(start, end - start);
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    std::error_code ec;
    if (access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate, ec))
      return candidate.string();
    start = end + 1;
  }
  return "";
}

// Runs `path` with `argv` and waits. stdin and stdout are inherited; stderr too unless
// `stderrFile` names a file to collect it in. Returns the exit status, 128 + the signal
// for a killed child (as a shell does), nullopt with errno set when it cannot start.
std::optional<int> runChild(const std::string &path, const std::vector<std::string> &argv,
                            const std::string &stderrFile = "") {
  std::vector<char *> cargv;
  for (const std::string &a : argv)
    cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!stderrFile.empty())
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderrFile.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid;
  int rc = posix_spawn(&pid, path.c_str(), &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    errno = rc;
    return std::nullopt;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return std::nullopt;
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

// The line of a child's collected stderr that says what went wrong, for a one-line
// warning: its first error, else its first line.
std::string firstErrorLine(const fs::path &stderrFile) {
  std::ifstream in(stderrFile);
  std::string line, first;
  while (std::getline(in, line)) {
    if (line.find("error") != std::string::npos)
      return line;
    if (first.empty())
      first = line;
  }
  return first;
}

// A private directory for the wrapper's temporary files, removed when it goes.
class TempDir {
public:
  TempDir() {
    std::string base = env("TMPDIR");
    std::string tmpl = (fs::path(base.empty() ? "/tmp" : base) / "rootline-cc-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      throw std::runtime_error("cannot create a temporary directory in '" +
                               fs::path(tmpl).parent_path().string() + "': " + strerror(errno));
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  const fs::path &path() const { return path_; }

private:
  fs::path path_;
};

fs::path absoluteFrom(const fs::path &cwd, const std::string &path) {
  return (fs::path(path).is_absolute() ? fs::path(path) : cwd / path).lexically_normal();
}

struct Settings {
  bool cxx = false;
  std::string realName; // as the user named it (what the log records)
  std::string realPath; // where it is
  fs::path store;       // empty: pass everything through
  fs::path log;         // empty: links are not logged
  std::string prefixMap;
  fs::path cwd;
  bool nativeOnly = false; // objects and programs as the build asks, no bitcode
};

Settings readSettings(const char *argv0) {
  Settings s;
  std::string lang = env("ROOTLINE_CC_LANG");
  if (lang != "" && lang != "c" && lang != "c++")
    throw Fatal("ROOTLINE_CC_LANG must be 'c' or 'c++', not '" + lang + "'", ExitBadInput);
  // Run as rootline-c++, or under a C++ compiler's usual name (a build's PATH holds
  // c++, g++ and clang++ as links to the wrapper: docs/project.md, "The compiler").
  std::string name = fs::path(argv0).filename().string();
  s.cxx = name == "rootline-c++" || name == "c++" || name == "g++" || name == "clang++" ||
          lang == "c++";
  const char *realVar = s.cxx ? "ROOTLINE_CXX_REAL" : "ROOTLINE_CC_REAL";
  s.realName = env(realVar);
  if (s.realName.empty())
    s.realName = s.cxx ? "clang++-19" : "clang-19";
  s.realPath = findProgram(s.realName);
  if (s.realPath.empty())
    throw Fatal("cannot find the compiler '" + s.realName + "' (set " + realVar + ")",
                ExitNoCompiler);
  // Pointing the wrapper at itself would make every compile start it again, forever.
  std::error_code ec;
  if (fs::equivalent(s.realPath, "/proc/self/exe", ec) && !ec)
    throw Fatal(std::string(realVar) + " names rootline-cc itself ('" + s.realName +
                    "'); it must name the real compiler",
                ExitBadInput);
  s.cwd = fs::current_path(ec);
  if (ec)
    throw Fatal("cannot read the current directory: " + ec.message(), ExitBadInput);
  if (std::string store = env("ROOTLINE_CC_STORE"); !store.empty())
    s.store = absoluteFrom(s.cwd, store);
  if (std::string log = env("ROOTLINE_CC_LOG"); !log.empty())
    s.log = absoluteFrom(s.cwd, log);
  std::string nativeOnly = env("ROOTLINE_CC_NATIVE_ONLY");
  if (nativeOnly != "" && nativeOnly != "0" && nativeOnly != "1")
    throw Fatal("ROOTLINE_CC_NATIVE_ONLY must be '0' or '1', not '" + nativeOnly + "'",
                ExitBadInput);
  s.nativeOnly = nativeOnly == "1";
  s.prefixMap = env("ROOTLINE_CC_PREFIX_MAP");
  if (!s.prefixMap.empty() && s.prefixMap.find('=') == std::string::npos)
    throw Fatal("ROOTLINE_CC_PREFIX_MAP must be FROM=TO, not '" + s.prefixMap + "'", ExitBadInput);
  return s;
}

class Wrapper {
public:
  Wrapper(Settings s, std::vector<std::string> args)
      : s_(std::move(s)), args_(std::move(args)),
        inv_(classify(args_, {s_.cxx, !s_.store.empty()})) {}

  int run() {
    switch (inv_.action) {
    case Action::PassThrough:
      return passThrough();
    case Action::Compile:
      return compile();
    case Action::Link:
      return s_.cxx ? cxxLink() : link();
    }
    return passThrough();
  }

private:
  Settings s_;
  std::vector<std::string> args_;
  Invocation inv_;
  std::optional<TempDir> tmp_;

  const fs::path &tmp() {
    if (!tmp_)
      tmp_.emplace();
    return tmp_->path();
  }

  std::vector<std::string> realCommand(const std::vector<std::string> &args) const {
    std::vector<std::string> argv = {s_.realName};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  // The real compiler's own run: its status is the wrapper's.
  int runReal(const std::vector<std::string> &args) {
    std::optional<int> status = runChild(s_.realPath, realCommand(args));
    if (!status)
      throw Fatal("cannot run '" + s_.realPath + "': " + strerror(errno), ExitNoCompiler);
    return *status;
  }

  int passThrough() {
    std::vector<std::string> argv = realCommand(args_);
    std::vector<char *> cargv;
    for (std::string &a : argv)
      cargv.push_back(a.data());
    cargv.push_back(nullptr);
    execv(s_.realPath.c_str(), cargv.data());
    throw Fatal("cannot run '" + s_.realPath + "': " + strerror(errno), ExitNoCompiler);
  }

  int compile() {
    int status = runReal(rewriteArgs(args_));
    if (status != 0)
      return status;
    for (const Input &in : inv_.inputs)
      if (wantsBitcode(in))
        attachBitcodeOrWarn(in, inv_.output.value_or(defaultObjectName(in.path)));
    return 0;
  }

  // Sources on a link line are compiled one by one into private objects first, so that
  // each gets its bitcode; the link then takes the objects in the sources' places.
  int link() {
    bool anyBitcode = false;
    for (const Input &in : inv_.inputs)
      anyBitcode |= wantsBitcode(in);
    int status;
    if (!anyBitcode) {
      status = runReal(rewriteArgs(args_));
    } else {
      std::map<std::size_t, std::string> objects;
      for (const Input &in : inv_.inputs) {
        if (!in.isSource())
          continue;
        std::string object =
            (tmp() / (std::to_string(objects.size()) + "-" + defaultObjectName(in.path))).string();
        if (int st = runReal(sourceObjectArgs(args_, in.arg, object)); st != 0)
          return st;
        if (wantsBitcode(in))
          attachBitcodeOrWarn(in, object);
        objects[in.arg] = object;
      }
      status = runReal(linkArgs(args_, objects));
    }
    if (status == 0)
      logLink(rewriteArgs(args_));
    return status;
  }

  int cxxLink() {
    int status = runReal(args_);
    if (status == 0)
      logLink(args_);
    return status;
  }

  bool wantsBitcode(const Input &in) const { return !s_.nativeOnly && needsBitcode(in); }

  void attachBitcodeOrWarn(const Input &in, const std::string &object) {
    try {
      attachBitcode(in, object);
    } catch (const std::exception &e) {
      std::cerr << "rootline-cc: warning: no bitcode for " << in.path << ": " << e.what() << "\n";
    }
  }

  // Compiles the unit's bitcode into the store and names it in the object's
  // .rootline_bc section, which the linker concatenates across every object it links.
  void attachBitcode(const Input &in, const std::string &object) {
    std::error_code ec;
    // `-o /dev/null` (a flag probe): nothing to attach to, and objcopy must not replace it.
    if (fs::exists(object, ec) && !fs::is_regular_file(object, ec))
      return;
    fs::create_directories(s_.store, ec);
    if (ec)
      throw NoBitcode("cannot create the store '" + s_.store.string() + "': " + ec.message());
    // A temporary name in the store itself, so that the rename into place is atomic.
    std::string temp = (s_.store / ".tmp-XXXXXX.bc").string();
    int fd = mkstemps(temp.data(), 3);
    if (fd < 0)
      throw NoBitcode("cannot create a file in the store '" + s_.store.string() +
                      "': " + strerror(errno));
    close(fd);
    fs::path errors = tmp() / "stderr";
    std::optional<int> status =
        runChild(s_.realPath, realCommand(bitcodeCompileArgs(args_, in.arg, temp, s_.prefixMap)),
                 errors.string());
    if (!status) {
      std::string why = strerror(errno);
      fs::remove(temp, ec);
      throw NoBitcode("cannot run '" + s_.realPath + "': " + why);
    }
    if (*status != 0) {
      fs::remove(temp, ec);
      std::string why = firstErrorLine(errors);
      throw NoBitcode(
          why.empty() ? "the bitcode compile failed (exit " + std::to_string(*status) + ")" : why);
    }
    fs::path stored;
    try {
      stored = s_.store / (sha256Hex(readFile(temp)) + ".bc");
    } catch (...) {
      fs::remove(temp, ec);
      throw;
    }
    if (fs::exists(stored, ec))
      fs::remove(temp, ec);
    else if (std::rename(temp.c_str(), stored.c_str()) != 0)
      throw NoBitcode("cannot move the bitcode into '" + stored.string() + "': " + strerror(errno));
    fs::path section = tmp() / "section";
    writeFile(section, stored.string() + "\n");
    std::string objcopy = findProgram("objcopy");
    if (objcopy.empty())
      throw NoBitcode("objcopy (binutils) is not in PATH");
    status =
        runChild(objcopy, {"objcopy", "--add-section", ".rootline_bc=" + section.string(), object},
                 errors.string());
    if (!status)
      throw NoBitcode("cannot run '" + objcopy + "': " + strerror(errno));
    if (*status != 0)
      throw NoBitcode("objcopy could not add the .rootline_bc section: " + firstErrorLine(errors));
  }

  void logLink(const std::vector<std::string> &args) {
    if (s_.log.empty())
      return;
    std::string output = absoluteFrom(s_.cwd, linkOutput(inv_)).string();
    std::error_code ec;
    if (skipLinkLog(inv_, output, s_.cwd.string()) || !fs::is_regular_file(output, ec))
      return; // a probe, or a link into /dev/null

    std::string line = linkLogLine(s_.cwd.string(), realCommand(args), output, inv_.shared);
    // One write with O_APPEND: lines of concurrent links (make -j) never interleave.
    int fd = open(s_.log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    ssize_t written = fd < 0 ? -1 : write(fd, line.data(), line.size());
    int err = errno;
    if (fd >= 0)
      close(fd);
    if (written != static_cast<ssize_t>(line.size()))
      std::cerr << "rootline-cc: warning: cannot log the link of " << output << " in "
                << s_.log.string() << ": " << (written < 0 ? strerror(err) : "short write") << "\n";
  }
};

} // namespace

int main(int argc, char **argv) {
  try {
    Settings settings = readSettings(argc > 0 ? argv[0] : "rootline-cc");
    std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
    return Wrapper(std::move(settings), std::move(args)).run();
  } catch (const Fatal &e) {
    std::cerr << "rootline-cc: error: " << e.what() << "\n";
    return e.code;
  } catch (const std::exception &e) {
    std::cerr << "rootline-cc: error: " << e.what() << "\n";
    return 1;
  }
}
