// libFuzzer target: the alternative-input rewriter (applyModel, docs/symbolic.md) on
// arbitrary inputs, variables and model values: tokens and bytes at any offset and
// length, in stdin, argv and files, rewritten in place without a crash.
#include "rootline/explore.h"

#include <cstdint>
#include <string>

namespace {

// Reads the fuzz data front to back; zeros when it runs out.
struct Bytes {
  const uint8_t *p;
  size_t n;
  uint8_t byte() { return n ? (--n, *p++) : 0; }
  uint64_t u64() {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v = (v << 8) | byte();
    return v;
  }
  std::string text(size_t max) {
    size_t len = std::min<size_t>(byte() % (max + 1), n);
    std::string s(reinterpret_cast<const char *>(p), len);
    p += len;
    n -= len;
    return s;
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in{data, size};
  rootline::ProgramInput base;
  base.stdinBytes = in.text(64);
  base.args = {in.text(16), in.text(16)};
  base.files["input.txt"] = in.text(64);
  static z3::context ctx; // one for the whole run: making one costs more than a case
  z3::model model(ctx);
  std::vector<rootline::InputVar> vars;
  unsigned count = in.byte() % 8;
  static const unsigned widths[] = {8, 16, 32, 64};
  for (unsigned k = 0; k < count; ++k) {
    rootline::InputVar v;
    uint8_t kind = in.byte();
    v.kind = kind % 3 == 0   ? rootline::InputVar::Kind::StdinByte
             : kind % 3 == 1 ? rootline::InputVar::Kind::Token
                             : rootline::InputVar::Kind::ArgvByte;
    v.bits = v.kind == rootline::InputVar::Kind::Token ? widths[in.byte() % 4] : 8;
    v.offset = in.byte() % 80;
    v.length = in.byte() % 12;
    v.conv = "diuxXoc"[in.byte() % 7];
    v.argIndex = in.byte() % 4;
    if (in.byte() & 1)
      v.file = (in.byte() & 1) ? "input.txt" : "missing.txt";
    v.name = "v" + std::to_string(k);
    if (in.byte() & 1) { // else the model leaves it open
      z3::func_decl decl = ctx.bv_const(v.name.c_str(), v.bits).decl();
      z3::expr value = ctx.bv_val(static_cast<uint64_t>(in.u64()), v.bits);
      model.add_const_interp(decl, value);
    }
    vars.push_back(v);
  }
  (void)rootline::applyModel(base, vars, model);
  return 0;
}
