// The libc models and table values on their own: each model, evaluated at concrete
// bytes, gives what libc gives; each table value what the table holds.
#include "symbolic/indexed_value.h"
#include "symbolic/libc_models.h"

#include <catch2/catch.hpp>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <map>

using namespace rootline;

namespace {

// Memory with a symbolic string `text` (bytes s0, s1, ...) at 1000 and a concrete one at 2000.
struct Memory {
  z3::context ctx;
  std::map<uint64_t, z3::expr> bytes;
  std::vector<z3::expr> vars;

  void symbolic(uint64_t at, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      vars.push_back(ctx.bv_const(("s" + std::to_string(i)).c_str(), 8));
      bytes.emplace(at + i, vars.back());
    }
    bytes.emplace(at + n, ctx.bv_val(0, 8));
  }
  void concrete(uint64_t at, const std::string &text) {
    for (size_t i = 0; i <= text.size(); ++i)
      bytes.emplace(at + i,
                    ctx.bv_val(i < text.size() ? static_cast<unsigned char>(text[i]) : 0, 8));
  }
  ByteReader reader() {
    return [this](uint64_t a) -> std::optional<ModelByte> {
      auto it = bytes.find(a);
      if (it == bytes.end())
        return std::nullopt;
      return ModelByte{it->second, 1, false};
    };
  }
  // The expression's value with the symbolic bytes set to `text`.
  int64_t at(z3::expr e, const std::string &text) {
    z3::expr_vector from(ctx), to(ctx);
    for (size_t i = 0; i < vars.size(); ++i) {
      from.push_back(vars[i]);
      to.push_back(ctx.bv_val(i < text.size() ? static_cast<unsigned char>(text[i]) : 0, 8));
    }
    z3::expr v = e.substitute(from, to).simplify();
    unsigned bits = v.get_sort().bv_size();
    uint64_t raw = v.get_numeral_uint64();
    if (bits < 64 && (raw >> (bits - 1)) & 1)
      return static_cast<int64_t>(raw) - static_cast<int64_t>(1ull << bits);
    return static_cast<int64_t>(raw);
  }
};

int sign(int64_t x) { return (x > 0) - (x < 0); }

} // namespace

TEST_CASE("strlen's model is the position of the first NUL", "[libc-models]") {
  Memory m;
  m.symbolic(1000, 4);
  auto len = strlenModel(m.ctx, m.reader(), 1000, 5);
  REQUIRE(len);
  for (std::string s : {"abcd", "ab", "", "a"})
    CHECK(m.at(len->value, s) == static_cast<int64_t>(std::strlen(s.c_str())));
}

TEST_CASE("strcmp's and memcmp's models have the sign of the libc result", "[libc-models]") {
  Memory m;
  m.symbolic(1000, 3);
  m.concrete(2000, "go!");
  auto cmp = compareModel(m.ctx, m.reader(), 1000, 2000, 4, true, m.ctx.bv_val(0, 32), -1, 1);
  auto mem = compareModel(m.ctx, m.reader(), 1000, 2000, 2, false, m.ctx.bv_val(0, 32), -1, 1);
  REQUIRE(cmp);
  REQUIRE(mem);
  for (std::string s : {"go!", "go", "gp!", "a", "", "zz", "go\x01", "\xff"}) {
    INFO(s);
    CHECK(sign(m.at(cmp->value, s)) == sign(std::strcmp(s.c_str(), "go!")));
    std::string padded = s + std::string(3, '\0');
    CHECK(sign(m.at(mem->value, s)) == sign(std::memcmp(padded.c_str(), "go!", 2)));
  }
}

TEST_CASE("strchr's model is the address of the first match, NULL past the NUL", "[libc-models]") {
  Memory m;
  m.symbolic(1000, 4);
  auto found = findModel(m.ctx, m.reader(), 1000, 5, m.ctx.bv_val('=', 8), true);
  REQUIRE(found);
  for (std::string s : {"a=b=", "=abc", "abcd", "ab", "ab=c"}) {
    const char *p = std::strchr(s.c_str(), '=');
    CHECK(m.at(found->value, s) == (p ? 1000 + (p - s.c_str()) : 0));
  }
  // Bytes that are not known make no model: the call stays concrete.
  CHECK_FALSE(findModel(m.ctx, m.reader(), 1000, 9, m.ctx.bv_val('=', 8), true));
}

TEST_CASE("table runs: constants and index-plus-constant runs, folded by operations",
          "[libc-models]") {
  std::vector<uint64_t> values;
  for (int i = 0; i < 10; ++i)
    values.push_back(i < 3 ? 7 : i < 6 ? static_cast<uint64_t>(i + 100) : 7);
  auto runs = runsOfTable(0, values);
  REQUIRE(runs.size() == 3);
  CHECK(runs[1].addsIndex);
  CHECK(runs[1].value == 100);
  CHECK_FALSE(mapRunValues(runs, [](uint64_t v) { return v & 1; }));
  auto eq = equalityRuns(runs, 104, 32, true); // holds at index 4 only
  z3::context ctx;
  z3::expr i = ctx.bv_const("i", 32);
  z3::expr cond = indexedExpr({i, eq, 1});
  for (int k = -3; k < 12; ++k) {
    z3::expr_vector from(ctx), to(ctx);
    from.push_back(i);
    to.push_back(ctx.bv_val(k, 32));
    CHECK(cond.substitute(from, to).simplify().get_numeral_uint64() == (k == 4 ? 1u : 0u));
  }
}

TEST_CASE("ctype's functions and tables as runs agree with libc on every char", "[libc-models]") {
  z3::context ctx;
  z3::expr c = ctx.bv_const("c", 32);
  for (const char *name : {"isdigit", "isalpha", "isspace", "isupper", "toupper", "tolower"}) {
    const std::vector<IndexRun> *runs = ctypeFunctionRuns(name);
    REQUIRE(runs);
    CHECK(runs->size() < 40); // short enough to read, not a 384-entry table
    z3::expr e = indexedExpr({c, *runs, 32});
    int (*fn)(int) = std::string(name) == "isdigit"   ? ::isdigit
                     : std::string(name) == "isalpha" ? ::isalpha
                     : std::string(name) == "isspace" ? ::isspace
                     : std::string(name) == "isupper" ? ::isupper
                     : std::string(name) == "toupper" ? ::toupper
                                                      : ::tolower;
    for (int k = -1; k < 256; ++k) {
      z3::expr_vector from(ctx), to(ctx);
      from.push_back(c);
      to.push_back(ctx.bv_val(k, 32));
      INFO(name << "(" << k << ")");
      CHECK(static_cast<int32_t>(e.substitute(from, to).simplify().get_numeral_uint64()) == fn(k));
    }
  }
  CHECK_FALSE(ctypeFunctionRuns("strlen"));
  // isdigit through the class table: the digit bit masked and compared with 0 is a range.
  auto digit = mapRunValues(ctypeTableRuns(CtypeTable::Class),
                            [](uint64_t v) -> uint64_t { return (v & 2048) != 0; });
  REQUIRE(digit);
  REQUIRE(digit->size() == 3);
  CHECK((*digit)[0].last == '0' - 1);
  CHECK((*digit)[1].last == '9');
}

TEST_CASE("atoi's model reads the digits up to the first non-digit, with a sign", "[libc-models]") {
  Memory m;
  m.symbolic(1000, 4);
  auto number = decimalModel(m.ctx, m.reader(), 1000, 4, 32);
  REQUIRE(number);
  for (std::string s : {"1234", "-123", "+9x1", "12a4", "-0", "7"})
    CHECK(m.at(number->value, s) == std::atoi(s.c_str()));
}

TEST_CASE("strrchr's and strstr's models find the last byte and the first occurrence",
          "[libc-models]") {
  Memory m;
  m.symbolic(1000, 5);
  m.concrete(2000, "ab");
  auto last = findLastModel(m.ctx, m.reader(), 1000, 6, m.ctx.bv_val('a', 8));
  auto found = searchModel(m.ctx, m.reader(), 1000, 6, 2000, 2);
  REQUIRE(last);
  REQUIRE(found);
  for (std::string s : {"abxab", "xxxxx", "ab", "xab", "aab", "xxxxa", "a"}) {
    INFO(s);
    const char *r = std::strrchr(s.c_str(), 'a'), *f = std::strstr(s.c_str(), "ab");
    CHECK(m.at(last->value, s) == (r ? 1000 + (r - s.c_str()) : 0));
    CHECK(m.at(found->value, s) == (f ? 1000 + (f - s.c_str()) : 0));
  }
}
