// The pieces every report format shares (src/report/report_text.h).
#include "report/report_text.h"

#include <catch2/catch.hpp>

using namespace rootline::report;

TEST_CASE("the lines of two states that differ are paired by their label and else by place",
          "[report]") {
  // A unit test's call: both return 0; object 1 differs, object 2 only the new run leaves.
  DifferingLines d = differingLines("returns 0\no0: 01 00\no1: 06 00\n",
                                    "returns 0\no0: 01 00\no1: fa ff\no2: 00\n");
  CHECK(d.alike == 2);
  CHECK(d.old == std::vector<std::string>{"o1: 06 00"});
  CHECK(d.now == std::vector<std::string>{"o1: fa ff", "o2: 00"});

  CHECK(d.unpaired == 0);

  // A crash: the first lines differ by place; the objects the old run left face no
  // state at all and are counted, not listed.
  d = differingLines("returns\no0: 0b\no1: 00\n", "ends with signal 11\n");
  CHECK(d.alike == 0);
  CHECK(d.unpaired == 2);
  CHECK(d.old == std::vector<std::string>{"returns"});
  CHECK(d.now == std::vector<std::string>{"ends with signal 11"});

  // A sentence with a colon in it is no label: it pairs by place.
  d = differingLines("prints \"a: b\"\n", "prints \"a: c\"\n");
  CHECK(d.old == std::vector<std::string>{"prints \"a: b\""});
  CHECK(d.now == std::vector<std::string>{"prints \"a: c\""});
  CHECK(differingLines("", "").alike == 0);
}
