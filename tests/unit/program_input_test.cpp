#include "rootline/explore.h"
#include "rootline/fs.h"

#include <unistd.h>

#include "test_support.h"

#include <catch2/catch.hpp>

using namespace rootline;

namespace {

InputVar token(uint64_t offset, uint64_t length, unsigned bits, char conv) {
  return test::tokenInput(offset, length, bits, conv);
}

InputVar byteVar(uint64_t offset) { return test::stdinByteInput(offset); }

z3::model modelOf(z3::context &ctx, std::vector<std::pair<InputVar, int64_t>> values) {
  z3::solver s(ctx);
  for (auto &[v, x] : values)
    s.add(ctx.bv_const(v.name.c_str(), v.bits) == ctx.bv_val(static_cast<int64_t>(x), v.bits));
  REQUIRE(s.check() == z3::sat);
  return s.get_model();
}

} // namespace

TEST_CASE("a model re-prints scanf tokens in place and keeps the rest of the input",
          "[explore][input]") {
  z3::context ctx;
  ProgramInput seed{"10 200\nrest\n", {}};
  InputVar qty = token(0, 2, 32, 'd'), code = token(3, 3, 32, 'd');
  ProgramInput out = applyModel(seed, {qty, code}, modelOf(ctx, {{qty, -7}, {code, 123456}}));
  CHECK(out.stdinBytes == "-7 123456\nrest\n");
  // A variable the model leaves open keeps its seed text.
  out = applyModel(seed, {qty, code}, modelOf(ctx, {{code, 5}}));
  CHECK(out.stdinBytes == "10 5\nrest\n");
}

TEST_CASE("unsigned, hex and narrow tokens print in the conversion's own format",
          "[explore][input]") {
  z3::context ctx;
  ProgramInput seed{"1 1 1", {}};
  InputVar u = token(0, 1, 32, 'u'), x = token(2, 1, 32, 'x'), c = token(4, 1, 8, 'd');
  ProgramInput out = applyModel(seed, {u, x, c}, modelOf(ctx, {{u, -1}, {x, 255}, {c, -128}}));
  CHECK(out.stdinBytes == "4294967295 ff -128");
}

TEST_CASE("stdin bytes and argv bytes are replaced where they came from", "[explore][input]") {
  z3::context ctx;
  ProgramInput seed{"abc", {"xyz"}};
  InputVar b1 = byteVar(1);
  InputVar a0;
  a0.kind = InputVar::Kind::ArgvByte;
  a0.name = "argv[1]@0";
  a0.argIndex = 1;
  a0.offset = 0;
  ProgramInput out = applyModel(seed, {b1, a0}, modelOf(ctx, {{b1, 'Z'}, {a0, '-'}}));
  CHECK(out.stdinBytes == "aZc");
  CHECK(out.args == std::vector<std::string>{"-yz"});
}

TEST_CASE("tokens and bytes of a file are rewritten in that file, not in stdin",
          "[explore][input][files]") {
  z3::context ctx;
  ProgramInput seed{"10 20", {}, {{"input.txt", "10 20"}, {"other.txt", "xyz"}}};
  InputVar stdinTok = token(0, 2, 32, 'd');
  InputVar fileTok = token(3, 2, 32, 'd');
  fileTok.file = "input.txt";
  fileTok.name = "ftok:input.txt@3:i32";
  InputVar fileByte = byteVar(1);
  fileByte.file = "other.txt";
  fileByte.name = "file:other.txt@1";
  ProgramInput out = applyModel(seed, {stdinTok, fileTok, fileByte},
                                modelOf(ctx, {{fileTok, 777}, {fileByte, 'Q'}}));
  CHECK(out.stdinBytes == "10 20");
  CHECK(out.files["input.txt"] == "10 777");
  CHECK(out.files["other.txt"] == "xQz");
}

TEST_CASE("an input is laid out for a run: stdin, its files, a working directory of its own",
          "[explore][input][files]") {
  fs::path dir = fs::temp_directory_path() / ("rl-materialise-" + std::to_string(getpid()));
  fs::remove_all(dir);
  ProgramInput in{"abc",
                  {"-v"},
                  {{"input.txt", "1 2"},
                   {"data/grid.txt", "..#"},
                   {"../x", "up"},
                   {"../../tests/y", "up2"},
                   {"../../../../../../../../../z", "too far"}}};
  in.env = {{"LC_ALL", "C"}};
  TestCase t = materialiseInput(in, dir);
  REQUIRE(t.workDir.has_value());
  CHECK(readFile(*t.stdinFile) == "abc");
  CHECK(t.args == std::vector<std::string>{"-v"});
  CHECK(t.env == std::map<std::string, std::string>{{"LC_ALL", "C"}});
  CHECK(readFile(*t.workDir / "input.txt") == "1 2");
  CHECK(readFile(*t.workDir / "data" / "grid.txt") == "..#");
  // A name that climbs (a test that went into a scratch directory first) is found where
  // it names: the working directory sits deep enough, inside the run's directory.
  CHECK(readFile(*t.workDir / ".." / "x") == "up");
  CHECK(readFile(*t.workDir / ".." / ".." / "tests" / "y") == "up2");
  CHECK(fs::path(*t.workDir)
            .lexically_normal()
            .string()
            .starts_with((dir / "cwd").lexically_normal().string() + "/"));
  // Nothing is written outside it, and a name that climbs too far is not laid out.
  CHECK_FALSE(fs::exists(dir / "x"));
  CHECK_FALSE(fs::exists(dir / "z"));
  CHECK_FALSE(fs::exists(dir / ".." / "z"));
  fs::remove_all(dir);
}
