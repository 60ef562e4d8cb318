// Which differing process of a test is debugged (src/project/failing_process.cpp).
#include "rootline/project.h"

#include <catch2/catch.hpp>

using namespace rootline;

namespace {

FailingProcess differing(size_t oldIndex, std::optional<size_t> newIndex,
                         std::vector<std::string> editedWords = {}) {
  FailingProcess f;
  f.oldIndex = oldIndex;
  f.newIndex = newIndex;
  f.why = newIndex ? "its stdout differs" : "the new run did not start it";
  f.editedWords = std::move(editedWords);
  return f;
}

} // namespace

TEST_CASE("the failing process is the first that ran in both runs and differs in more than "
          "edited text",
          "[project][failing]") {
  // Process 1 has no counterpart (a writer its reader's exit ended before its trace
  // began), process 2 prints the release the change bumped, process 4 differs for real.
  std::vector<FailingProcess> all = {differing(0, std::nullopt), differing(1, 1, {"1.2 → 1.3"}),
                                     differing(3, 2)};
  std::optional<FailingProcess> f = failingProcessOf(all);
  REQUIRE(f);
  CHECK(f->oldIndex == 3);
  // With no process that ran in both, the one without a counterpart is all there is.
  f = failingProcessOf({differing(0, std::nullopt), differing(1, 1, {"1.2 → 1.3"})});
  REQUIRE(f);
  CHECK(f->oldIndex == 0);
  // Edited text alone everywhere: the first.
  f = failingProcessOf({differing(1, 1, {"1.2 → 1.3"}), differing(2, 2, {"a → b"})});
  REQUIRE(f);
  CHECK(f->oldIndex == 1);
  CHECK_FALSE(failingProcessOf({}));
}
