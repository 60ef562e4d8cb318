#include "rootline/error.h"
#include "rootline/process.h"
#include "test_support.h"

#include <catch2/catch.hpp>

#include <csignal>

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

TEST_CASE("runProcess kills a hanging program at the timeout", "[process]") {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "sleep 30"};
  spec.timeoutSeconds = 0.3;
  auto r = runProcess(spec);
  CHECK(r.timedOut);
  CHECK(r.seconds < 10);
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
