#include "rootline/error.h"
#include "rootline/trace.h"
#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;
using namespace rootline::test;

namespace {

Event ev(Ev tag, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0, uint64_t e = 0,
         std::string_view bytes = {}) {
  Event x;
  x.tag = tag;
  x.a = a, x.b = b, x.c = c, x.d = d, x.e = e;
  x.bytes = bytes;
  return x;
}

std::string sampleTrace(const std::string &key) {
  TraceWriter w(key);
  w.put(ev(Ev::FUNC, 3, 0x401000));
  w.put(ev(Ev::ENTER, 3));
  w.put(ev(Ev::LOAD, 0x7ffd12345678ull, ~0ull));
  w.put(ev(Ev::STORE, 0x7ffd12345670ull));
  w.put(ev(Ev::OUTPUT, 1, 0, 2, 0, 3, "abc"));
  w.put(ev(Ev::TOKEN, 4, 2, 0x7ffd0000, 4, 'd'));
  w.put(ev(Ev::BR_TRUE));
  w.put(ev(Ev::EXIT, 0));
  w.put(ev(Ev::END));
  return w.bytes();
}

std::string expectError(const std::function<void()> &fn) {
  try {
    fn();
  } catch (const Error &e) {
    return e.what();
  }
  FAIL("expected an Error");
  return {};
}

} // namespace

TEST_CASE("trace files round-trip through writer and reader", "[trace]") {
  TraceReader r = TraceReader::fromBytes(sampleTrace("key1"), "key1");
  CHECK(r.header().version == kTraceVersion);
  CHECK(r.header().moduleKey == "key1");
  Event e;
  REQUIRE(r.next(e));
  CHECK((e.tag == Ev::FUNC && e.a == 3 && e.b == 0x401000));
  REQUIRE(r.next(e));
  CHECK(e.tag == Ev::ENTER);
  REQUIRE(r.next(e));
  CHECK((e.tag == Ev::LOAD && e.a == 0x7ffd12345678ull && e.b == ~0ull));
  REQUIRE(r.peek(e)); // peeking must not disturb the delta-encoded addresses
  REQUIRE(r.peek(e));
  REQUIRE(r.next(e));
  CHECK((e.tag == Ev::STORE && e.a == 0x7ffd12345670ull)); // delta-encoded address restored
  REQUIRE(r.next(e));
  CHECK((e.tag == Ev::OUTPUT && e.a == 1 && e.c == 2 && e.e == 3 && e.bytes == "abc"));
  REQUIRE(r.peek(e));
  CHECK(e.tag == Ev::TOKEN);
  REQUIRE(r.next(e));
  CHECK((e.tag == Ev::TOKEN && e.a == 4 && e.b == 2 && e.d == 4 && e.e == 'd'));
  REQUIRE(r.next(e));
  CHECK(e.tag == Ev::BR_TRUE);
  REQUIRE(r.next(e));
  REQUIRE(r.next(e));
  CHECK(e.tag == Ev::END);
  CHECK_FALSE(r.next(e));
}

TEST_CASE("LOAD values of every byte length and stack allocations round-trip", "[trace]") {
  std::vector<uint64_t> values = {0,
                                  1,
                                  0x7f,
                                  0x80,
                                  0xff,
                                  0x100,
                                  0xffff,
                                  0x10000,
                                  0xffffffffull,
                                  0x100000000ull,
                                  0x00ff00ff00ff00ffull,
                                  ~0ull};
  TraceWriter w("k");
  uint64_t addr = 0x7ffd00001000ull;
  for (uint64_t v : values) {
    w.put(ev(Ev::ALLOCA_LOCAL, addr - 16, 4, 0, 0, 0, "\x01\x02\x03\x04"));
    w.put(ev(Ev::LOAD, addr, v));
    w.put(ev(Ev::ALLOCA, addr + 64, 8));
    addr -= 0x40;
  }
  // The value's byte count is in the tag: 0 costs no byte, 0x100 two, ~0 eight.
  auto loadSize = [](uint64_t v) {
    TraceWriter one("k");
    one.put(ev(Ev::LOAD, 0, v));
    return one.bytes().size() - TraceWriter("k").bytes().size();
  };
  CHECK(loadSize(0) == 2);
  CHECK(loadSize(0x100) == 4);
  CHECK(loadSize(~0ull) == 10);
  TraceReader r = TraceReader::fromBytes(w.bytes(), "k");
  addr = 0x7ffd00001000ull;
  for (uint64_t v : values) {
    Event e;
    REQUIRE(r.next(e));
    CHECK((e.tag == Ev::ALLOCA_LOCAL && e.a == addr - 16 && e.b == 4 &&
           e.bytes == "\x01\x02\x03\x04"));
    REQUIRE(r.next(e));
    INFO("value " << v);
    CHECK((e.tag == Ev::LOAD && e.a == addr && e.b == v));
    REQUIRE(r.next(e));
    CHECK((e.tag == Ev::ALLOCA && e.a == addr + 64 && e.b == 8));
    addr -= 0x40;
  }
  Event e;
  CHECK_FALSE(r.next(e));
  CHECK_FALSE(r.truncated());
}

TEST_CASE("a LOAD cut inside its value bytes is a truncated trace", "[trace]") {
  TraceWriter w("k");
  w.put(ev(Ev::BR_TRUE));
  w.put(ev(Ev::LOAD, 0x1000, 0x123456789aull)); // five value bytes
  std::string bytes = w.bytes();
  TraceReader r = TraceReader::fromBytes(bytes.substr(0, bytes.size() - 2), "k");
  Event e;
  REQUIRE(r.next(e));
  CHECK(e.tag == Ev::BR_TRUE);
  CHECK_FALSE(r.next(e));
  CHECK(r.truncated());
}

TEST_CASE("a truncated trace ends at the last whole event and says it was truncated", "[trace]") {
  std::string bytes = sampleTrace("k");
  // Cut inside the OUTPUT event's payload: four whole events remain.
  std::string cut = bytes.substr(0, bytes.find("abc") + 1);
  TraceReader r = TraceReader::fromBytes(cut);
  Event e;
  int n = 0;
  while (r.next(e))
    ++n;
  CHECK(n == 4);
  CHECK(r.truncated());
  TraceReader whole = TraceReader::fromBytes(bytes);
  while (whole.next(e)) {
  }
  CHECK_FALSE(whole.truncated());
  // A header cut short is not a trace at all.
  CHECK(expectError([&] { TraceReader::fromBytes(bytes.substr(0, 10)); }).find("truncated") !=
        std::string::npos);
}

TEST_CASE("a trace of another version, another module or no trace at all is refused", "[trace]") {
  TraceWriter old("k", 0);
  CHECK(expectError([&] { TraceReader::fromBytes(old.bytes()); }).find("version 0") !=
        std::string::npos);
  CHECK(expectError([&] {
          TraceReader::fromBytes(sampleTrace("other"), "mine");
        }).find("another program") != std::string::npos);
  CHECK(expectError([&] {
          TraceReader::fromBytes("hello world, not a trace");
        }).find("not a rootline trace") != std::string::npos);
  CHECK(expectError([&] { TraceReader::fromBytes(""); }).find("not a rootline trace") !=
        std::string::npos);
  TempDir t;
  CHECK(expectError([&] { TraceReader(t.path / "missing.trace"); }).find("cannot read trace") !=
        std::string::npos);
}

TEST_CASE("an unknown event tag is reported as corruption", "[trace]") {
  std::string bytes = TraceWriter("k").bytes() + std::string(1, '\x7f');
  TraceReader r = TraceReader::fromBytes(bytes);
  Event e;
  CHECK(expectError([&] { r.next(e); }).find("corrupt") != std::string::npos);
}

TEST_CASE("ENTER_FRAME and RESUME anchors are deltas from each other, apart from data "
          "addresses, and LAYOUT carries its offsets",
          "[trace][frame]") {
  // Calls alternate with loads of a global far away from the stack: each anchor costs
  // two bytes as a delta from the previous anchor, not eight from the last load.
  const uint64_t global = 0x404000, stack = 0x7ffd12345000ull;
  const std::string offsets = "\x00\x08\x10"; // zigzag varints of 0, 4, 8
  TraceWriter w("k");
  w.put(ev(Ev::ENTER_FRAME, stack, 7));
  w.put(ev(Ev::LAYOUT, 7, 3, 0, 0, 0, std::string_view(offsets.data(), 3)));
  w.put(ev(Ev::LOAD, global, 1));
  size_t before = w.bytes().size();
  for (int depth = 1; depth <= 3; ++depth) {
    w.put(ev(Ev::LOAD, global + 4 * static_cast<uint64_t>(depth), 1));
    w.put(ev(Ev::ENTER_FRAME, stack - 0x30 * static_cast<uint64_t>(depth), 7));
  }
  CHECK(w.bytes().size() - before == 3 * (3 /* LOAD */ + 3 /* ENTER_FRAME */));
  w.put(ev(Ev::RESUME, stack)); // a longjmp back to the outermost frame: same chain
  TraceReader r = TraceReader::fromBytes(w.bytes(), "k");
  Event e;
  REQUIRE(r.next(e));
  CHECK((e.tag == Ev::ENTER_FRAME && e.a == stack && e.b == 7));
  REQUIRE(r.next(e));
  CHECK((e.tag == Ev::LAYOUT && e.a == 7 && e.bytes == std::string_view(offsets.data(), 3)));
  REQUIRE(r.next(e));
  CHECK((e.tag == Ev::LOAD && e.a == global));
  for (uint64_t depth = 1; depth <= 3; ++depth) {
    REQUIRE(r.next(e));
    CHECK((e.tag == Ev::LOAD && e.a == global + 4 * depth));
    REQUIRE(r.peek(e)); // peeking keeps both delta chains
    REQUIRE(r.next(e));
    CHECK((e.tag == Ev::ENTER_FRAME && e.a == stack - 0x30 * depth && e.b == 7));
  }
  REQUIRE(r.next(e));
  CHECK((e.tag == Ev::RESUME && e.a == stack));
  CHECK_FALSE(r.next(e));
}
