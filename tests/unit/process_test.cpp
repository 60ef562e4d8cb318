#include "rootline/error.h"
#include "rootline/process.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <csignal>
#include <thread>

#include <sys/personality.h>

using namespace rootline;
using namespace rootline::test;

TEST_CASE("runProcess captures output, exit codes and signals", "[process]") {
  TempDir t;
  writeText(t.path / "in.txt", "abc\n");
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "cat; echo err >&2; exit 3"};
  spec.stdinFile = (t.path / "in.txt").string();
  auto r = runProcess(spec);
  CHECK(r.out == "abc\n");
  CHECK(r.err == "err\n");
  CHECK(r.exitedWith(3));
  CHECK(r.outcome() == "exit 3");

  spec.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  r = runProcess(spec);
  CHECK(r.signal == SIGSEGV);
  CHECK(r.outcome() == "signal SIGSEGV");
}

TEST_CASE("runProcess runs with fixed addresses or randomized ones as asked even under a parent "
          "that fixed them",
          "[process]") {
  // rootline runs under `setarch -R` or under rootline itself, and the flag is inherited:
  // a differential unit test checked "as a user runs it" must really be randomized.
  int saved = personality(0xffffffff);
  REQUIRE(saved != -1);
  ProcessSpec spec;
  spec.argv = {"/bin/cat", "/proc/self/personality"};
  for (int parentFixed = 0; parentFixed < 2; ++parentFixed) {
    personality(parentFixed ? (saved | ADDR_NO_RANDOMIZE) : (saved & ~ADDR_NO_RANDOMIZE));
    spec.noAddressRandomization = false;
    ProcessResult randomized = runProcess(spec);
    spec.noAddressRandomization = true;
    ProcessResult fixed = runProcess(spec);
    personality(saved);
    INFO("parent fixed: " << parentFixed);
    REQUIRE(randomized.exitedWith(0));
    REQUIRE(fixed.exitedWith(0));
    unsigned long r = std::stoul(randomized.out, nullptr, 16),
                  f = std::stoul(fixed.out, nullptr, 16);
    CHECK((r & ADDR_NO_RANDOMIZE) == 0);
    CHECK((f & ADDR_NO_RANDOMIZE) != 0);
  }
}

TEST_CASE("runProcess kills a hanging program at the timeout", "[process]") {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "sleep 30"};
  spec.timeoutSeconds = 0.3;
  auto r = runProcess(spec);
  CHECK(r.timedOut);
  CHECK(r.seconds < 10);
}

TEST_CASE("runProcess kills at the timeout a program that closed its stdout and stderr and "
          "went on",
          "[process]") {
  // diffstat -o OUT -e ERR points both at files and may then loop: the pipes end, the
  // program does not.
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "exec >/dev/null 2>&1; sleep 20"};
  spec.timeoutSeconds = 0.3;
  auto r = runProcess(spec);
  CHECK(r.timedOut);
  // One that ends after closing them is reaped as usual, with its status.
  spec.argv = {"/bin/sh", "-c", "exec >/dev/null 2>&1; sleep 0.1; exit 3"};
  spec.timeoutSeconds = 20;
  r = runProcess(spec);
  CHECK_FALSE(r.timedOut);
  CHECK(r.exitCode == 3);
}

TEST_CASE("runProcess stops a program that prints without end at the output limit", "[process]") {
  ProcessSpec spec;
  spec.argv = {"/usr/bin/yes", "a fairly long line of output"};
  spec.maxOutputBytes = 200000;
  spec.timeoutSeconds = 20;
  auto r = runProcess(spec);
  CHECK(r.outputLimited);
  CHECK_FALSE(r.timedOut);
  CHECK(r.outcome() == "output limit");
  CHECK(r.out.size() > 200000);
  CHECK(r.out.size() < 200000 + 65536 * 2);
  CHECK(r.out.rfind("a fairly long line of output\n", 0) == 0);

  spec.argv = {"/bin/sh", "-c", "echo small"}; // under the limit: a normal run
  r = runProcess(spec);
  CHECK_FALSE(r.outputLimited);
  CHECK(r.exitedWith(0));
}

TEST_CASE("runProcess reports a missing stdin file or program", "[process]") {
  ProcessSpec spec;
  spec.argv = {"/bin/true"};
  spec.stdinFile = "/nonexistent/input.txt";
  CHECK_THROWS_AS(runProcess(spec), Error);
  spec.stdinFile.reset();
  spec.argv = {"/nonexistent/program"};
  CHECK_THROWS_AS(runProcess(spec), Error);
}

TEST_CASE("runProcess reports a file the kernel cannot execute as a shell does: exit 127",
          "[process]") {
  TempDir t;
  fs::path notProgram = t.path / "notes.txt";
  writeText(notProgram, "not a program\n");
  fs::permissions(notProgram, fs::perms::owner_all);
  ProcessSpec spec;
  spec.argv = {notProgram.string()};
  ProcessResult r = runProcess(spec);
  CHECK(r.exitCode == 127);
  CHECK(r.signal == 0);
  CHECK(r.err.find("cannot execute") != std::string::npos);
  // The working directory and stdin still reach a program that runs.
  writeText(t.path / "in.txt", "from stdin\n");
  spec.argv = {"/bin/sh", "-c", "pwd; cat"};
  spec.workDir = t.path.string();
  spec.stdinFile = (t.path / "in.txt").string();
  r = runProcess(spec);
  CHECK(r.exitCode == 0);
  CHECK(r.out == fs::canonical(t.path).string() + "\nfrom stdin\n");
}

TEST_CASE("firstErrorLine names the diagnostic, not the driver's summary", "[process]") {
  CHECK(firstErrorLine("In file included from t.c:19:\n./x.c:12:3: error: unknown type 'foo'\n"
                       "1 error generated.\n") == "./x.c:12:3: error: unknown type 'foo'");
  CHECK(firstErrorLine("/usr/bin/ld: /tmp/t.o: in function `rl_build_0':\n"
                       "t.c:(.text+0x1d): undefined reference to `rl_static.add_word'\n"
                       "clang-19: error: linker command failed with exit code 1\n") ==
        "t.c:(.text+0x1d): undefined reference to `rl_static.add_word'");
  CHECK(firstErrorLine("make: *** [all] Error 2\n") == "make: *** [all] Error 2");
  CHECK(firstErrorLine("checking for gcc... no\nconfigure: no C compiler\n") ==
        "configure: no C compiler");
}

TEST_CASE("runProcess from two threads at once: each child gets its own environment and "
          "directory",
          "[process][threads]") {
  // The child's environment is made before the fork (a child of a process with other
  // threads may only make async-signal-safe calls until exec): extraEnv overrides an
  // inherited variable, adds its own, and keeps the rest of the parent's environment.
  TempDir t;
  fs::create_directories(t.path / "a");
  fs::create_directories(t.path / "b");
  std::atomic<int> right{0}, wrong{0};
  auto runMany = [&](const std::string &id) {
    for (int i = 0; i < 100; ++i) {
      ProcessSpec spec;
      spec.argv = {"/bin/sh", "-c",
                   "printf '%s|%s|%s' \"$HOME\" \"$ROOTLINE_TEST_VALUE\" \"$(basename \"$PWD\")\"; "
                   "test -n \"$PATH\""};
      std::string value = id + std::to_string(i);
      spec.extraEnv = {{"HOME", "/home-" + value}, {"ROOTLINE_TEST_VALUE", value}};
      spec.workDir = (t.path / id).string();
      spec.timeoutSeconds = 60;
      ProcessResult r = runProcess(spec);
      if (r.exitedWith(0) && r.out == "/home-" + value + "|" + value + "|" + id)
        ++right;
      else
        ++wrong;
    }
  };
  std::thread a(runMany, "a"), b(runMany, "b");
  a.join();
  b.join();
  CHECK(wrong == 0);
  CHECK(right == 200);
  ProcessSpec plain; // no extraEnv: the parent's own environment
  plain.argv = {"/bin/sh", "-c", "printf '%s' \"$HOME\""};
  CHECK(runProcess(plain).out == std::string(getenv("HOME") ? getenv("HOME") : ""));
}

TEST_CASE("toolFailure names a hung tool by its bound, else the caller's line", "[process]") {
  ProcessResult hung;
  hung.timedOut = true;
  CHECK(toolFailure(hung, "clang", "x.c:1: error: nope") == "clang did not end within 600 s");
  ProcessResult failed;
  failed.exitCode = 1;
  CHECK(toolFailure(failed, "clang", "x.c:1: error: nope") == "x.c:1: error: nope");
}
