// The language flags of a compile, as rootline's bitcode compiles record them in the
// debug information for the differential unit test (src/build/language_flags.h).
#include "build/language_flags.h"

#include <catch2/catch.hpp>

using namespace rootline;

TEST_CASE("a compile's language flags are kept, its outputs and warnings are not, and their "
          "record reads back with blanks and backslashes intact",
          "[unittest]") {
  std::vector<std::string> args = {"-c",
                                   "-o",
                                   "x.o",
                                   "-DNAME=\"a b\"",
                                   "-I",
                                   "inc dir",
                                   "-Iother",
                                   "-O2",
                                   "-Wall",
                                   "-MD",
                                   "-MF",
                                   ".deps/x.Tpo",
                                   "-std=gnu99",
                                   "-include",
                                   "config.h",
                                   "-Wp,-DX=1",
                                   "-funsigned-char",
                                   "x.c",
                                   "-DPATH=C:\\dir"};
  std::vector<std::string> kept = languageFlags(args);
  CHECK(kept == std::vector<std::string>{"-DNAME=\"a b\"", "-I", "inc dir", "-Iother", "-std=gnu99",
                                         "-include", "config.h", "-Wp,-DX=1", "-funsigned-char",
                                         "-DPATH=C:\\dir"});
  CHECK(splitRecordedFlags(recordedFlagsText(kept)) == kept);
  CHECK(recordFlagsArgs({}).empty());
  // What clang itself records (-grecord-command-line) reads the same way.
  CHECK(splitRecordedFlags("/usr/bin/clang -D V=\"1\\ 2\" -I /tmp/x\\ y") ==
        std::vector<std::string>{"/usr/bin/clang", "-D", "V=\"1 2\"", "-I", "/tmp/x y"});
}

TEST_CASE("a differential unit test of a strict C89 unit is built as gnu89 (cmocka.h needs "
          "inline)",
          "[build]") {
  CHECK(withInlineKeyword({"-DX=1", "-std=c89", "-Iinc"}) ==
        std::vector<std::string>{"-DX=1", "-std=gnu89", "-Iinc"});
  CHECK(withInlineKeyword({"-ansi"}) == std::vector<std::string>{"-std=gnu89"});
  CHECK(withInlineKeyword({"-std=c99", "-std=gnu89"}) ==
        std::vector<std::string>{"-std=c99", "-std=gnu89"});
}
