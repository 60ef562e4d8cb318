// The test spectrum's score and sample (docs/debug.md, "Test spectrum").
#include "compose/debug_stages.h"

#include <catch2/catch.hpp>

#include <set>

using namespace rootline;

TEST_CASE("Ochiai's score of a line from the processes that ran it", "[debug][spectrum]") {
  ProcessCounts of{2, 8};
  CHECK(ProcessCounts{2, 0}.ochiai(of) == Approx(1.0));     // every differing, no alike
  CHECK(ProcessCounts{0, 5}.ochiai(of) == Approx(0.0));     // no differing process
  CHECK(ProcessCounts{2, 8}.ochiai(of) == Approx(0.44721)); // every process: 2 / sqrt(2 * 10)
  CHECK(ProcessCounts{1, 0}.ochiai(of) == Approx(0.70711)); // one of two, alone
  CHECK(ProcessCounts{0, 0}.ochiai(of) == 0.0);             // run by none
  CHECK(ProcessCounts{1, 1}.ochiai({0, 2}) == 0.0);         // no differing process at all
}

TEST_CASE("the test spectrum replays the differing processes first, then a sample of the alike "
          "ones spread over the run",
          "[debug][spectrum]") {
  std::vector<DebugRequest::TestProcess> ps(300);
  for (size_t i = 0; i < ps.size(); ++i)
    ps[i].alike = i != 7 && i != 250;
  std::vector<size_t> order = debug::testSpectrumOrder(ps);
  REQUIRE(order.size() == 2 + debug::kTestSpectrumAlikeSample);
  CHECK(std::set<size_t>{order[0], order[1]} == std::set<size_t>{7, 250});
  std::set<size_t> sample(order.begin() + 2, order.end());
  CHECK(sample.size() == debug::kTestSpectrumAlikeSample); // each once
  for (size_t i : sample)
    CHECK(ps[i].alike);
  // Spread: the sample reaches both ends of the run.
  CHECK(*sample.begin() < 10);
  CHECK(*sample.rbegin() > 250);
  // A few processes: every one, each once.
  ps.resize(5);
  ps[1].alike = false;
  order = debug::testSpectrumOrder(ps);
  CHECK(order.size() == 5);
  CHECK(order[0] == 1);
  CHECK(std::set<size_t>(order.begin(), order.end()).size() == 5);
}
