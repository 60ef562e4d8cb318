// RunLog (include/rootline/run_log.h): the align stage's logs grow in their own mapping
// with mremap; every record must survive each move, and copies must be independent.
#include "rootline/run_log.h"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

using namespace rootline;

namespace {
struct Record {
  uint64_t a;
  uint32_t b;
  uint8_t c;
};
} // namespace

TEST_CASE("a run log keeps every record in order while it grows past many pages", "[run_log]") {
  RunLog<Record> log;
  CHECK(log.empty());
  std::vector<Record> pending;
  const uint64_t n = 3'000'000; // ~48 MB: the mapping moves several times
  for (uint64_t i = 0; i < n; ++i) {
    if (i % 3 == 0) {
      pending = {{i, uint32_t(i * 7), uint8_t(i)}};
      if (i + 1 < n)
        pending.push_back({i + 1, uint32_t((i + 1) * 7), uint8_t(i + 1)});
      log.append(pending.begin(), pending.end());
      ++i;
    } else {
      log.push_back({i, uint32_t(i * 7), uint8_t(i)});
    }
  }
  REQUIRE(log.size() == n);
  CHECK(log.capacity() >= n);
  bool whole = true;
  for (uint64_t i = 0; i < n; ++i)
    whole &= log[i].a == i && log[i].b == uint32_t(i * 7) && log[i].c == uint8_t(i);
  CHECK(whole);
  CHECK(log.back().a == n - 1);
  CHECK(log.end() - log.begin() == static_cast<std::ptrdiff_t>(n));
}

TEST_CASE("a run log's copy is its own, and a move leaves the source empty", "[run_log]") {
  RunLog<int> a{1, 2, 3};
  RunLog<int> b = a;
  b.push_back(4);
  b[0] = 10;
  CHECK(a.size() == 3);
  CHECK(a[0] == 1);
  CHECK(b.size() == 4);
  RunLog<int> c = std::move(b);
  CHECK(b.empty());
  CHECK(b.begin() == b.end());
  CHECK(c.size() == 4);
  CHECK(c[0] == 10);
  CHECK(c[3] == 4);
  a = c;
  CHECK(a.size() == 4);
  c.clear();
  CHECK(c.empty());
  CHECK(a[3] == 4);
  RunLog<int> empty;
  empty.append(a.begin(), a.begin()); // nothing to add: no mapping needed
  CHECK(empty.empty());
}
