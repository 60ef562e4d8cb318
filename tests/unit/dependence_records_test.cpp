// The compact dependence records (src/slice/dependence_records.cpp): every record reads
// back as it was written, whatever its counts, distances and locations.
#include "rootline/dependence_records.h"

#include <catch2/catch.hpp>

#include <random>

using namespace rootline;

namespace {

struct Written {
  uint32_t id;
  InstanceDeps deps;
};

// A record of instance `i` with definitions at random distances back (some far, some
// none), random locations of every tag, and now and then many operands or writers.
Written randomRecord(std::mt19937_64 &rng, uint64_t i) {
  auto pick = [&](uint64_t n) { return n == 0 ? 0 : rng() % n; };
  auto earlier = [&]() -> uint64_t {
    if (i == 0 || pick(8) == 0)
      return kNoDef;
    uint64_t back = pick(4) == 0 ? 1 + pick(i) : 1 + pick(std::min<uint64_t>(i, 5));
    return i - back;
  };
  Written w;
  w.id = static_cast<uint32_t>(rng());
  InstanceDeps &d = w.deps;
  d.isBranch = pick(3) == 0;
  d.successor = d.isBranch ? static_cast<uint32_t>(pick(4) == 0 ? pick(300) : pick(2)) : 0;
  d.isOutput = pick(10) == 0;
  d.readsUnwritten = pick(10) == 0;
  d.parent = earlier();
  d.operandCount = static_cast<unsigned>(pick(20) == 0 ? 15 + pick(40) : pick(4));
  for (unsigned k = 0; k < d.operandCount; ++k)
    d.defs.push_back(earlier());
  size_t writers = pick(10) == 0 ? pick(200) : pick(3);
  for (size_t k = 0; k < writers; ++k)
    if (uint64_t def = earlier(); def != kNoDef)
      d.defs.push_back(def);
  size_t locs = pick(3);
  for (size_t k = 0; k < locs; ++k) {
    uint32_t tag = static_cast<uint32_t>(pick(4)) << 30;
    d.locs.push_back(tag | static_cast<uint32_t>(pick(pick(2) ? 100 : 1u << 30)));
  }
  return w;
}

} // namespace

TEST_CASE("dependence records read back as written: counts, distances, locations and flags") {
  std::mt19937_64 rng(20261127);
  DependenceRecords records;
  std::vector<Written> written;
  for (uint64_t i = 0; i < 20000; ++i) {
    written.push_back(randomRecord(rng, i));
    records.append(written.back().id, written.back().deps);
  }
  REQUIRE(records.size() == written.size());
  InstanceDeps got;
  for (uint64_t i = 0; i < written.size(); ++i) {
    const InstanceDeps &want = written[i].deps;
    INFO("instance " << i);
    records.decode(i, got);
    CHECK(records.id(i) == written[i].id);
    CHECK(got.parent == want.parent);
    CHECK(records.parent(i) == want.parent);
    CHECK(got.isBranch == want.isBranch);
    CHECK(records.isBranch(i) == want.isBranch);
    CHECK(got.isOutput == want.isOutput);
    CHECK(records.isOutput(i) == want.isOutput);
    CHECK(got.readsUnwritten == want.readsUnwritten);
    CHECK(got.successor == want.successor);
    CHECK(records.successor(i) == want.successor);
    CHECK(got.operandCount == want.operandCount);
    CHECK(got.defs == want.defs);
    CHECK(got.locs == want.locs);
    for (unsigned k = 0; k <= want.operandCount; ++k)
      CHECK(records.operandDef(i, k) == (k < want.operandCount ? want.defs[k] : kNoDef));
  }
}

TEST_CASE("a writer that is not an earlier instance is no dependence, and an operand's stays in "
          "place as none") {
  DependenceRecords records;
  InstanceDeps first;
  records.append(7, first);
  InstanceDeps d;
  d.operandCount = 2;
  d.defs = {kNoDef, 5 /* not earlier than instance 1 */, kNoDef, 0};
  d.locs = {kOutputLoc};
  records.append(8, d);
  InstanceDeps got;
  records.decode(1, got);
  CHECK(got.operands().size() == 2);
  CHECK(got.defs == std::vector<uint64_t>{kNoDef, kNoDef, 0});
  CHECK(got.writers().size() == 1);
  CHECK(got.locs == std::vector<AbsLoc>{kOutputLoc});
}

TEST_CASE("truncated records keep the instances before the cut and take appends after it") {
  DependenceRecords records;
  InstanceDeps d;
  for (uint32_t i = 0; i < 10; ++i) {
    d.clear();
    d.operandCount = 1;
    d.defs = {i == 0 ? kNoDef : i - 1};
    records.append(100 + i, d);
  }
  uint64_t before = records.usedBytes();
  records.truncate(4);
  CHECK(records.size() == 4);
  CHECK(records.usedBytes() < before);
  CHECK(records.operandDef(3, 0) == 2);
  d.defs = {1};
  records.append(42, d);
  CHECK(records.id(4) == 42);
  CHECK(records.operandDef(4, 0) == 1);
}

TEST_CASE("dependence records span many windows, and a record longer than a window reads back "
          "whole") {
  DependenceRecords records;
  std::vector<std::vector<uint64_t>> written;
  InstanceDeps d;
  auto add = [&](uint64_t i, size_t writers) {
    d.clear();
    d.operandCount = 2;
    d.defs = {i > 0 ? i - 1 : kNoDef, kNoDef};
    for (size_t k = 0; k < writers; ++k)
      d.defs.push_back((i * 7919 + k * 104729) % i);
    records.append(static_cast<uint32_t>(i), d);
    written.push_back(d.defs);
  };
  for (uint64_t i = 0; i < 300000; ++i)
    add(i, i == 150000 ? 700000 : (i % 5 == 0 && i > 0 ? 3 : 0)); // ~3 bytes per writer
  REQUIRE(records.usedBytes() > 4u << 20);                        // more than four 1 MiB windows
  CHECK(records.capacityBytes() < records.usedBytes() + (3u << 20));
  InstanceDeps got;
  for (uint64_t i : {uint64_t{0}, uint64_t{1}, uint64_t{149999}, uint64_t{150000}, uint64_t{150001},
                     uint64_t{299999}}) {
    records.decode(i, got);
    CHECK(got.defs == written[i]);
  }
  for (uint64_t i = 0; i < records.size(); i += 997) {
    records.decode(i, got);
    CHECK(got.defs == written[i]);
    CHECK(records.id(i) == i);
  }
  records.truncate(150001); // inside the long record's buffer
  written.resize(150001);
  for (uint64_t i = 150001; i < 200000; ++i)
    add(i, i % 3);
  for (uint64_t i = 149990; i < records.size(); ++i) {
    records.decode(i, got);
    CHECK(got.defs == written[i]);
  }
}
