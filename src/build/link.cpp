// Compiling a linked module to a native executable with clang-19.
#include "build/cache.h"
#include "rootline/build.h"
#include "rootline/error.h"
#include "rootline/hash.h"
#include "rootline/process.h"

namespace rootline {

namespace {

// clang-19 from the bitcode to `out`, written under a temporary name and renamed.
void compileExecutable(const fs::path &out, const fs::path &bitcode, const std::string &flavor,
                       const std::vector<fs::path> &extraInputs,
                       const std::vector<std::string> &libs,
                       const std::vector<std::string> &extraFlags) {
  fs::path tmp = out;
  tmp += uniqueTempSuffix();
  ProcessSpec spec;
  // -O0 keeps the native code's memory accesses exactly those of the IR replay walks.
  spec.argv = {clangPath(), "-O0", "-g", "-w", bitcode.string()};
  for (const auto &p : extraInputs)
    spec.argv.push_back(p.string());
  spec.argv.insert(spec.argv.end(), extraFlags.begin(), extraFlags.end());
  for (const auto &l : libs)
    spec.argv.push_back("-l" + l);
  // libm always, as course graders' `cc prog.c -lm` does: at -O0 sqrt() and pow() are
  // calls, and a program that forgot -lm in its recipe should still link.
  spec.argv.push_back("-lm");
  spec.argv.insert(spec.argv.end(), {"-o", tmp.string()});
  spec.timeoutSeconds = kToolSeconds;
  ProcessResult r = runProcess(spec);
  if (!r.exitedWith(0)) {
    auto nl = r.err.find('\n');
    throw Error("cannot link the " + flavor +
                    " executable: " + toolFailure(r, "the link", r.err.substr(0, nl)),
                ExitBadInput, r.err);
  }
  fs::rename(tmp, out);
}

} // namespace

BuiltExecutable linkExecutable(const fs::path &bitcode, const std::string &moduleKey,
                               const std::string &flavor, const std::vector<fs::path> &extraInputs,
                               const std::vector<std::string> &libs,
                               const std::vector<std::string> &extraFlags) {
  Hasher h;
  // The bitcode path is content-addressed (module key, instrumentation version).
  h.add("rootline-exe-v2")
      .add(moduleKey)
      .add(bitcode.filename().string())
      .add(flavor)
      .add(clangPath());
  for (const auto &p : extraInputs)
    h.add(p.string()).add(sha256Hex(readFile(p)));
  for (const auto &l : libs)
    h.add(l);
  for (const auto &f : extraFlags)
    h.add(f);
  BuiltExecutable result;
  result.path = buildcache::executable(h.hex());
  result.cacheHit = buildcache::buildOnce(result.path, [&] {
    compileExecutable(result.path, bitcode, flavor, extraInputs, libs, extraFlags);
  });
  return result;
}

} // namespace rootline
