// Generated unit tests (docs/explore.md, "Generated unit tests"): each explored input of
// a unit exploration becomes a cmocka test that builds the same arguments (the driver's
// builder, reading the input's numbers from an array), calls the function in a child
// process and checks what it printed and how it ended.
#include "rootline/unit_harness.h"

#include "rootline/error.h"
#include "rootline/expr_text.h"
#include "rootline/json_text.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace rootline {

namespace {

// A C string literal, one source line per output line (adjacent literals concatenate).
std::string cString(const std::string &s) {
  if (s.empty())
    return "\"\"";
  std::string out;
  size_t from = 0;
  while (from < s.size()) {
    size_t nl = s.find('\n', from);
    size_t to = nl == std::string::npos ? s.size() : nl + 1;
    out += (out.empty() ? "" : "\n      ") + cStringLiteral(s.substr(from, to - from));
    from = to;
  }
  return out;
}

std::vector<std::string> words(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string w;
  while (in >> w)
    out.push_back(w);
  return out;
}

// The numbers a run read: its last output line says how many.
std::vector<std::string> numbersRead(const GeneratedTest &t) {
  std::vector<std::string> all = words(t.input.stdinBytes);
  const std::string key = "numbers read: ";
  size_t at = t.stdoutBytes.rfind(key);
  if (at == std::string::npos)
    return all;
  size_t n = std::strtoul(t.stdoutBytes.c_str() + at + key.size(), nullptr, 10);
  if (n < all.size())
    all.resize(n);
  return all;
}

// The lines `target WHAT = FUNCTION` of a run: the function pointers the solver chose.
std::vector<std::string> chosenTargets(const std::string &out) {
  std::vector<std::string> targets;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("target ", 0) == 0)
      targets.push_back(line.substr(7));
  return targets;
}

const char *kPreamble = R"(#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static const char *const *rl_inputs;
static size_t rl_input_count, rl_input_at;
static int rl_read_next(const char *fmt, void *dst) {
  ++rl_reads;
  if (rl_input_at >= rl_input_count)
    return EOF;
  return sscanf(rl_inputs[rl_input_at++], fmt, dst);
}

/* One case in a child process: a crash, an exit or a global it changes stays there.
 * Returns what it printed (the function's own output and the state the driver prints)
 * and how it ended. */
static char *rl_run_case(const char *const *inputs, size_t n, int *status) {
  int fds[2];
  if (pipe(fds) != 0)
    fail_msg("pipe: cannot run the case");
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    /* cmocka's handlers would catch a crash in the child and run the other tests there. */
    int fatal[] = {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT};
    for (unsigned i = 0; i < sizeof fatal / sizeof *fatal; ++i)
      signal(fatal[i], SIG_DFL);
    rl_limit_stack();
    close(fds[0]);
    dup2(fds[1], 1);
    rl_out = stdout;
    rl_inputs = inputs;
    rl_input_count = n;
    rl_input_at = 0;
    rl_reset();
    rl_build();
    rl_built();
    rl_call();
    fflush(stdout);
    _exit(0);
  }
  close(fds[1]);
  size_t size = 0, cap = 4096;
  char *out = malloc(cap);
  ssize_t got;
  while ((got = read(fds[0], out + size, cap - size - 1)) > 0) {
    size += (size_t)got;
    if (cap - size < 2)
      out = realloc(out, cap *= 2);
  }
  out[size] = 0;
  close(fds[0]);
  waitpid(pid, status, 0);
  return out;
}
)";

} // namespace

void writeUnitTests(const ExploreResult &result, const UnitHarness &h, const fs::path &dir) {
  fs::path unit = dir / "unit";
  fs::create_directories(unit);
  if (h.driver != unit / "driver.c")
    writeFileAtomic(unit / "driver.c", h.driverText);
  std::string fn = h.function;
  std::ostringstream tests, crashes, testList, crashList;
  nlohmann::json cases = nlohmann::json::array();
  for (const GeneratedTest &t : result.tests) {
    char id[32];
    std::snprintf(id, sizeof id, "%04u", t.id);
    std::vector<std::string> numbers = numbersRead(t);
    std::ostringstream inputs;
    inputs << "  static const char *const inputs[] = {";
    for (size_t i = 0; i < numbers.size(); ++i)
      inputs << (i ? ", " : "") << cString(numbers[i]);
    if (numbers.empty())
      inputs << "\"\"";
    inputs << "};\n";
    bool crashed = t.outcome.rfind("signal", 0) == 0;
    nlohmann::json c = {{"test", t.id},
                        {"inputs", numbers},
                        {"outcome", t.outcome},
                        {"expected_stdout", t.stdoutBytes},
                        {"targets", chosenTargets(t.stdoutBytes)}};
    if (crashed) {
      // The crash, named as the exploration found it when it did.
      std::string named = t.outcome;
      for (const FoundBug &b : result.bugs)
        if (b.input.stdinBytes == t.input.stdinBytes)
          named = b.kind + " at " + fs::path(b.file).filename().string() + ":" +
                  std::to_string(b.line) + " in " + b.function + " (" + t.outcome + ")";
      std::string name = "crash_" + std::string(id);
      crashes << "/* Test " << id << ": " << named << ". Fails while the crash reproduces. */\n"
              << "static void " << name << "(void **state) {\n  (void)state;\n"
              << inputs.str() << "  int status = 0;\n"
              << "  char *out = rl_run_case(inputs, sizeof inputs / sizeof *inputs, &status);\n"
              << "  free(out);\n"
              << "  if (WIFSIGNALED(status))\n"
              << "    fail_msg(\"%s: %s\", \"" << name << "\", " << cString(named) << ");\n"
              << "}\n\n";
      crashList << "      cmocka_unit_test(" << name << "),\n";
      c["unit_test"] = "crash_" + fn + ".c:" + name;
      c["crash"] = named;
    } else if (t.outcome.rfind("exit ", 0) == 0) {
      std::string name = "test_" + std::string(id);
      int code = std::atoi(t.outcome.c_str() + 5);
      tests << "static void " << name << "(void **state) {\n  (void)state;\n"
            << inputs.str() << "  int status = 0;\n"
            << "  char *out = rl_run_case(inputs, sizeof inputs / sizeof *inputs, &status);\n"
            << "  assert_true(WIFEXITED(status));\n"
            << "  assert_int_equal(WEXITSTATUS(status), " << code << ");\n"
            << "  assert_string_equal(out,\n      " << cString(t.stdoutBytes) << ");\n"
            << "  free(out);\n}\n\n";
      testList << "      cmocka_unit_test(" << name << "),\n";
      c["unit_test"] = "test_" + fn + ".c:" + name;
    } else {
      c["unit_test"] = nullptr; // a timeout: not a unit test
    }
    cases.push_back(c);
  }
  auto file = [&](const std::string &what, const std::string &body, const std::string &list) {
    std::ostringstream o;
    o << "/* Generated by rootline explore --function " << fn << ": " << what
      << " (cmocka; docs/explore.md, \"Generated unit tests\").\n"
      << " * Each test builds the arguments from the numbers the exploration chose, calls " << fn
      << "\n * in a child process and checks its output, return value and state. */\n"
      << "#define RL_UNIT_TEST 1\n#include <stdio.h>\n"
      << "static int rl_read_next(const char *fmt, void *dst);\n"
      << "#define RL_READ(fmt, dst) rl_read_next(fmt, dst)\n"
      << "#include \"driver.c\"\n\n"
      << kPreamble << "\n"
      << body << "int main(void) {\n"
      << "  const struct CMUnitTest tests[] = {\n"
      << (list.empty() ? "      {0},\n" : list) << "  };\n"
      << "  return cmocka_run_group_tests(tests, NULL, NULL);\n}\n";
    return o.str();
  };
  std::string testFile = "test_" + fn + ".c", crashFile = "crash_" + fn + ".c";
  writeFileAtomic(unit / testFile, file("unit tests", tests.str(), testList.str()));
  bool anyCrash = !crashList.str().empty();
  if (anyCrash)
    writeFileAtomic(unit / crashFile, file("crash reproductions", crashes.str(), crashList.str()));

  // The CMake snippet: the tests against the project's own sources.
  std::ostringstream cm;
  auto absoluteFlags = [](const TranslationUnit &u) {
    std::string out;
    for (const auto &f : u.flags) {
      std::string g = f;
      if (g.rfind("-I", 0) == 0 && g.size() > 2 && fs::path(g.substr(2)).is_relative())
        g = "-I" + (u.workDir / g.substr(2)).lexically_normal().string();
      out += " \"" + g + "\"";
    }
    return out;
  };
  cm << "# Generated by rootline explore --function " << fn
     << " (docs/explore.md, \"Generated unit tests\").\n"
     << "#   cmake -S . -B build && cmake --build build && ctest --test-dir build -LE crash\n"
     << "cmake_minimum_required(VERSION 3.25)\nproject(rootline_unit_" << fn << " C)\n"
     << "find_package(PkgConfig REQUIRED)\n"
     << "pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)\n"
     << "enable_testing()\n";
  std::string others;
  for (const auto &u : h.program.units)
    if (u.source != h.definingSource) {
      others += " \"" + u.source.string() + "\"";
      std::string opts = absoluteFlags(u);
      cm << "set_source_files_properties(\"" << u.source.string()
         << "\" PROPERTIES COMPILE_DEFINITIONS main=rootline_program_main";
      if (!opts.empty()) {
        // A list: the flags without their quotes, separated by semicolons.
        std::string list;
        for (const auto &f : u.flags)
          list += (list.empty() ? "" : ";") + f;
        cm << " COMPILE_OPTIONS \"" << list << "\"";
      }
      cm << ")\n";
    }
  const TranslationUnit *defining = nullptr;
  for (const auto &u : h.program.units)
    if (u.source == h.definingSource)
      defining = &u;
  std::string libs;
  for (const auto &l : h.program.libs)
    libs += " " + l;
  for (const std::string &exe : {std::string("test_") + fn, std::string("crash_") + fn}) {
    if (exe.rfind("crash_", 0) == 0 && !anyCrash)
      continue;
    cm << "add_executable(" << exe << " " << exe << ".c" << others << ")\n"
       << "target_compile_options(" << exe << " PRIVATE -g -O0"
       << (defining ? absoluteFlags(*defining) : "") << ")\n"
       << "target_link_libraries(" << exe << " PRIVATE PkgConfig::CMOCKA m" << libs << ")\n"
       << "add_test(NAME " << exe << " COMMAND " << exe << ")\n";
    if (exe.rfind("crash_", 0) == 0)
      cm << "# Fails while a crash the exploration found reproduces.\n"
         << "set_tests_properties(" << exe << " PROPERTIES LABELS crash)\n";
  }
  writeFileAtomic(unit / "CMakeLists.txt", cm.str());

  nlohmann::json sidecar = {{"function", fn},
                            {"source", h.definingSource.string()},
                            {"bounds",
                             {{"max_depth", h.options.maxDepth},
                              {"max_objects", h.options.maxObjects},
                              {"max_array", h.options.maxArray},
                              {"max_string", h.options.maxString}}},
                            {"framework", "cmocka"},
                            {"cases", cases},
                            {"notes", h.notes}};
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto &in : h.inputs)
    inputs.push_back({{"name", in.name}, {"type", in.type}, {"how", in.how}});
  sidecar["inputs"] = inputs;
  writeFileAtomic(unit / "cases.json", jsonText(sidecar));
}

} // namespace rootline
