// Deadlines, their shares, and the progress line.
#include "rootline/budget.h"
#include "rootline/progress.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <thread>

using namespace rootline;

TEST_CASE("an unlimited deadline never expires and shares stay unlimited", "[budget]") {
  Deadline d;
  CHECK_FALSE(d.limited());
  CHECK_FALSE(d.expired());
  CHECK(d.remaining() > 1e6);
  CHECK_FALSE(d.share(0.1).limited());
  CHECK(d.clamp(30) == 30);
  CHECK(d.clampMs(1000) == 1000u);
}

TEST_CASE("a share takes a fraction of what is left, never past the deadline", "[budget]") {
  Deadline d = Deadline::in(10);
  Deadline half = d.share(0.5);
  CHECK(half.limited());
  CHECK(half.remaining() <= 5.0 + 1e-3);
  CHECK(half.remaining() > 4.0);
  // The floor lifts a small share, but not past the parent deadline.
  CHECK(d.share(0.01, 3).remaining() > 2.5);
  CHECK(Deadline::in(1).share(0.5, 5).remaining() <= 1.0 + 1e-3);
  CHECK(d.before(4).remaining() <= 6.0 + 1e-3);
  CHECK(d.atMost(2).remaining() <= 2.0 + 1e-3);
  CHECK(Deadline::in(1).atMost(5).remaining() <= 1.0 + 1e-3);
}

TEST_CASE("timeouts are cut to what is left, with a minimum", "[budget]") {
  Deadline spent = Deadline::in(0);
  CHECK(spent.expired());
  CHECK(spent.remaining() == 0);
  CHECK(spent.clamp(30, 0.5) == 0.5);
  CHECK(spent.clampMs(10000, 50) == 50u);
  Deadline d = Deadline::in(2);
  CHECK(d.clamp(30) <= 2.0);
  CHECK(d.clamp(1) == 1.0);
}

TEST_CASE("a deadline check looks at the clock once per period", "[budget]") {
  Deadline spent = Deadline::in(0);
  DeadlineCheck check(spent, 4);
  CHECK_FALSE(check.tick());
  CHECK_FALSE(check.tick());
  CHECK_FALSE(check.tick());
  CHECK(check.tick());
  CHECK(check.due());
  CHECK(check.expired());
  CHECK_FALSE(check.tick());
  CHECK_FALSE(check.due());
}

namespace {
std::string contents(std::FILE *f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[256];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    s.append(buf, n);
  return s;
}
} // namespace

TEST_CASE("progress stays silent for the first second, then prints plain lines", "[budget]") {
  std::FILE *f = std::tmpfile();
  REQUIRE(f);
  {
    Progress p(f, false);
    p.stage("trace", "old version");
    CHECK(contents(f).empty()); // a quick run prints nothing
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    p.stage("slice", "new version");
    p.update("42 instances");
  }
  std::string out = contents(f);
  CHECK(out.find("rootline: [") == 0);
  CHECK(out.find("s] slice: new version\n") != std::string::npos);
  CHECK(out.find("\r") == std::string::npos); // not a terminal: no in-place updates
  std::fclose(f);
}

TEST_CASE("progress on a terminal updates one line in place and clears it", "[budget]") {
  std::FILE *f = std::tmpfile();
  REQUIRE(f);
  {
    Progress p(f, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    p.stage("compose", "constraint 3 of 9");
    p.finish();
  }
  std::string out = contents(f);
  CHECK(out.find("\r\033[Krootline: [") == 0);
  CHECK(out.find("s] compose: constraint 3 of 9") != std::string::npos);
  CHECK(out.size() >= 4);
  CHECK(out.substr(out.size() - 4) == "\r\033[K");
  std::fclose(f);
}

TEST_CASE("a job nested in a stage shows its stages as that stage's counts", "[budget]") {
  // local Darwin's nested debug: before, its seconds passed with nothing on stderr.
  std::FILE *f = std::tmpfile();
  REQUIRE(f);
  {
    Progress p(f, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    p.stage("local darwin");
    {
      Progress nested(p, "at power: ");
      std::this_thread::sleep_for(std::chrono::milliseconds(300)); // in place: every 0.2 s
      nested.stage("evidence", "value evidence for 1 changed line(s)");
      nested.finish(); // the parent's line is the parent's to end
    }
    CHECK(contents(f).substr(contents(f).size() - 4) != "\r\033[K");
    p.finish();
  }
  std::string out = contents(f);
  INFO(out);
  CHECK(out.find("s] local darwin\r") != std::string::npos);
  CHECK(out.find("s] local darwin: at power: evidence: value evidence for 1 changed line(s)") !=
        std::string::npos);
  std::fclose(f);
}

TEST_CASE("disabled progress prints nothing", "[budget]") {
  Progress p = Progress::toStderr(false);
  CHECK_FALSE(p.enabled());
  p.stage("trace");
  p.update("x");
}
