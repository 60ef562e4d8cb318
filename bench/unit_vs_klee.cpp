// Unit mode against KLEE (docs/explore.md, "Comparison with KLEE"): for each function of
// bench/klee/klee_results.json, runs `rootline explore --function` with KLEE's time
// budget, builds the cmocka tests it writes with clang's source-based coverage, runs
// them, and measures branch coverage with the same script as KLEE's replayed tests
// (bench/klee/branch_coverage.py). KLEE is not a dependency: its figures are the ones
// recorded in klee_results.json by bench/klee/run_klee.sh.
//
// Usage: ./build/bench/unit_vs_klee [BUDGET_SECONDS]   (default 30, as KLEE's --max-time)
#include "rootline/fs.h"
#include "rootline/process.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

using namespace rootline;
using nlohmann::json;

namespace {

const fs::path kSource = ROOTLINE_SOURCE_DIR;

// A tool's path from PATH (runProcess does not search it).
std::string onPath(const std::string &name) {
  if (name.find('/') != std::string::npos)
    return name;
  const char *path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin";
  for (size_t at = 0; at <= dirs.size();) {
    size_t end = dirs.find(':', at);
    if (end == std::string::npos)
      end = dirs.size();
    fs::path candidate = fs::path(dirs.substr(at, end - at)) / name;
    if (::access(candidate.c_str(), X_OK) == 0)
      return candidate.string();
    at = end + 1;
  }
  return name;
}

ProcessResult run(std::vector<std::string> argv, const fs::path &dir, double timeout,
                  std::map<std::string, std::string> env = {}) {
  argv[0] = onPath(argv[0]);
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.workDir = dir.string();
  spec.timeoutSeconds = timeout;
  spec.extraEnv = std::move(env);
  return runProcess(spec);
}

struct Measured {
  unsigned tests = 0, crashes = 0;
  double seconds = 0;
  std::string covered = "?", total = "?";
  std::string bugs;
};

// The generated tests, built with coverage; a crashing case still writes its profile
// (KLEE's replays get the same: bench/klee/replay_support.c), so the tests' own reset of
// the fatal signals in the child is turned off for this build.
std::string coverageOf(const fs::path &out, const std::string &file, const std::string &function) {
  fs::path unit = out / "unit", build = out / "cov", prof = out / "prof";
  fs::create_directories(prof);
  // Each case runs in a child that ends with _exit: the profile is written first.
  writeFileAtomic(
      out / "keep_handlers.c",
      "#include <signal.h>\n#include <unistd.h>\n"
      "int __llvm_profile_write_file(void);\n"
      "typedef void (*rl_handler)(int);\n"
      "rl_handler rl_bench_signal(int sig, rl_handler h) { (void)sig; (void)h; "
      "return SIG_DFL; }\n"
      "void rl_bench_exit(int status) { __llvm_profile_write_file(); _exit(status); }\n");
  std::string objects;
  for (const auto &[src, obj] :
       {std::pair{(kSource / "bench/klee/replay_support.c").string(), (out / "rs.o").string()},
        std::pair{(out / "keep_handlers.c").string(), (out / "kh.o").string()}}) {
    if (!run({"clang-19", "-c", "-O0", src, "-o", obj}, out, 60).exitedWith(0))
      return "? (support build failed)";
    objects += " " + obj;
  }
  std::string flags = "-O0 -g -fprofile-instr-generate -fcoverage-mapping "
                      "-Dsignal=rl_bench_signal -D_exit=rl_bench_exit";
  if (!run({"cmake", "-S", unit.string(), "-B", build.string(), "-DCMAKE_C_COMPILER=clang-19",
            "-DCMAKE_C_FLAGS=" + flags,
            "-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate" + objects},
           out, 120)
           .exitedWith(0) ||
      !run({"cmake", "--build", build.string()}, out, 300).exitedWith(0))
    return "? (test build failed)";
  std::vector<std::string> exports = {"llvm-cov-19", "export", "-format=text"};
  bool first = true;
  for (const std::string &exe : {"test_" + function, "crash_" + function}) {
    if (!fs::exists(build / exe))
      continue;
    run({(build / exe).string()}, out, 300,
        {{"LLVM_PROFILE_FILE", (prof / "%p.profraw").string()}});
    if (!first)
      exports.push_back("-object");
    exports.push_back((build / exe).string());
    first = false;
  }
  std::vector<std::string> merge = {"llvm-profdata-19", "merge", "-sparse", "-o",
                                    (out / "merged.profdata").string()};
  for (const auto &e : fs::directory_iterator(prof))
    merge.push_back(e.path().string());
  if (first || merge.size() == 5 || !run(merge, out, 120).exitedWith(0))
    return "? (no profile)";
  exports.push_back("-instr-profile=" + (out / "merged.profdata").string());
  ProcessResult exported = run(exports, out, 120);
  writeFileAtomic(out / "export.json", exported.out);
  ProcessResult cov = run({"python3", (kSource / "bench/klee/branch_coverage.py").string(),
                           (out / "export.json").string(), file, function},
                          out, 60);
  std::string text = cov.out;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  return text;
}

Measured measure(const fs::path &work, const std::string &file, const std::string &function,
                 double budget) {
  Measured m;
  fs::path out = work / function;
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult p = run({ROOTLINE_BINARY, "explore", "--src", (kSource / file).string(),
                         "--function", function, "--out", (out / "x").string(), "--max-runs", "300",
                         "--budget", std::to_string(budget), "-q"},
                        work, budget * 3 + 60);
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!fs::exists(out / "x" / "summary.json")) {
    std::fprintf(stderr, "%s: rootline explore failed (%s): %s\n", function.c_str(),
                 p.outcome().c_str(), p.err.c_str());
    return m;
  }
  json summary = json::parse(readFile(out / "x" / "summary.json"));
  json cases = json::parse(readFile(out / "x" / "unit" / "cases.json"));
  m.tests = static_cast<unsigned>(cases["cases"].size());
  std::map<std::string, unsigned> kinds;
  for (const auto &c : cases["cases"])
    m.crashes += c.value("outcome", "").rfind("signal", 0) == 0;
  for (const auto &b : summary["bugs"])
    ++kinds[b.value("kind", "?")];
  for (const auto &[k, n] : kinds)
    m.bugs += (m.bugs.empty() ? "" : ", ") + k + ": " + std::to_string(n);
  std::string cov = coverageOf(out / "x", fs::path(file).filename().string(), function);
  size_t sp = cov.find(' ');
  if (sp != std::string::npos && cov[0] != '?') {
    m.covered = cov.substr(0, sp);
    m.total = cov.substr(sp + 1);
  } else {
    m.covered = cov;
  }
  return m;
}

} // namespace

int main(int argc, char **argv) {
  double budget = argc > 1 ? std::atof(argv[1]) : 30;
  json klee = json::parse(readFile(kSource / "bench/klee/klee_results.json"));
  ScopedWorkDir scoped("bench-unit-klee");
  const fs::path &work = scoped.path;
  std::printf("KLEE %s (figures recorded %s, %s); rootline measured now, --budget %.0f\n\n",
              klee.value("klee_version", "?").c_str(), klee.value("date", "?").c_str(),
              klee.value("machine", "?").c_str(), budget);
  std::printf("%-14s | %6s %7s %6s %-18s %9s | %6s %7s %-12s %9s\n", "function", "tests", "s",
              "crash", "bugs", "branches", "KLEE t", "KLEE s", "KLEE errors", "branches");
  unsigned same = 0, rows = 0;
  double ourSeconds = 0, kleeSeconds = 0;
  for (const auto &r : klee["functions"]) {
    std::string function = r["function"], file = r["file"];
    Measured m = measure(work, file, function, budget);
    std::string errors;
    for (const auto &[k, n] : r["klee_errors"].items())
      errors += (errors.empty() ? "" : ",") + k + ":" + std::to_string(n.get<int>());
    std::string kleeBranches = std::to_string(r["branches_covered"].get<int>()) + "/" +
                               std::to_string(r["branches_total"].get<int>());
    std::string ours = m.covered + "/" + m.total;
    std::printf("%-14s | %6u %7.1f %6u %-18s %9s | %6d %7.2f %-12s %9s\n", function.c_str(),
                m.tests, m.seconds, m.crashes, m.bugs.empty() ? "none" : m.bugs.c_str(),
                ours.c_str(), r["klee_tests"].get<int>(), r["klee_seconds"].get<double>(),
                errors.empty() ? "none" : errors.c_str(), kleeBranches.c_str());
    std::fflush(stdout); // a row per function as it is measured (about 40 s each)
    ++rows;
    ourSeconds += m.seconds;
    kleeSeconds += r["klee_seconds"].get<double>();
    if (m.total == std::to_string(r["branches_total"].get<int>()) &&
        std::atoi(m.covered.c_str()) >= r["branches_covered"].get<int>())
      ++same;
  }
  std::printf("\ncoverage at least KLEE's on %u of %u functions; time %.1f s vs KLEE %.1f s "
              "(ratio %.2f)\n",
              same, rows, ourSeconds, kleeSeconds,
              kleeSeconds > 0 ? ourSeconds / kleeSeconds : 0.0);
  return 0;
}
