#include "rootline/text_diff.h"

#include <catch2/catch.hpp>

using namespace rootline;

TEST_CASE("a line diff maps unchanged lines and says which new line replaced a changed one",
          "[diff]") {
  std::string oldText = "a\nb\nc\nd\ne\nf\n";
  // b changed into B, d deleted, x inserted after e, f unchanged
  std::string newText = "a\nB\nc\ne\nx\nf\n";
  TextDiff d = diffTexts(oldText, newText);
  CHECK(d.changedInOld(2));
  CHECK(d.changedInNew(2));
  CHECK(d.changedInOld(4));
  CHECK(d.changedInNew(5));
  CHECK_FALSE(d.changedInOld(3));
  CHECK(d.newLineOf(3) == 3u);
  CHECK(d.newLineOf(5) == 4u);
  CHECK(d.oldLineOf(6) == 6u);
  CHECK(d.newLineOf(2) == std::nullopt);

  CHECK(d.replacementOf(2) == 2u);           // modified: b -> B
  CHECK(d.replacementOf(4) == std::nullopt); // deleted outright
  CHECK(d.replacementOf(3) == std::nullopt); // unchanged

  // A three-line hunk replaced by one line: every old line maps to it.
  TextDiff shrink = diffTexts("p\nq1\nq2\nq3\nr\n", "p\nQ\nr\n");
  CHECK(shrink.replacementOf(2) == 2u);
  CHECK(shrink.replacementOf(4) == 2u);
}
