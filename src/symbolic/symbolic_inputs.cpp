// Inputs and outputs: input variables named by origin (argv bytes, stdin and file
// bytes, scanf's and atoi's tokens) with their domains, and the outputs whose bytes or
// values depend on them.
#include "symbolic/symbolic_replayer.h"

#include <cstring>

namespace rootline {

// Byte `offset` of argv[index] (`seed`: its value in the traced run).
InputVar argvByte(unsigned index, uint64_t offset, uint8_t seed) {
  InputVar v;
  v.kind = InputVar::Kind::ArgvByte;
  v.name = "argv[" + std::to_string(index) + "]@" + std::to_string(offset);
  v.offset = offset;
  v.argIndex = index;
  v.seedValue = seed;
  v.display = "argv[" + std::to_string(index) + "][" + std::to_string(offset) + "]";
  return v;
}

z3::expr SymbolicReplayer::Impl::variable(InputVar v) {
  auto it = varIndex.find(v.name);
  if (it != varIndex.end())
    return varExpr[it->second];
  varIndex[v.name] = run.inputs.size();
  varExpr.push_back(ctx.bv_const(v.name.c_str(), v.bits));
  if (!v.display.empty())
    v.display = names.fresh(v.display);
  run.inputs.push_back(v);
  return varExpr.back();
}

// Memory byte `addr` becomes input variable (or byte expression) `e`.
void SymbolicReplayer::Impl::setByte(uint64_t addr, const z3::expr &e) {
  unsigned i = push(e, 1);
  symByte[addr] = {i, i, 0, 1};
  knownByte.erase(addr);
}

// A byte of the input source of the current input event: stdin, or a file. Shown as
// the buffer element it was read into (`line[4]`), else by its place (`stdin[17]`).
z3::expr SymbolicReplayer::Impl::stdinByte(uint64_t offset, uint64_t dest) {
  if (currentArg) // sscanf(argv[1], "%s", ...): the argument's own byte
    return variable(argvByte(currentArg, offset, 0));
  InputVar v;
  v.kind = InputVar::Kind::StdinByte;
  v.file = currentFile;
  v.name = (currentFile.empty() ? "stdin" : "file:" + currentFile) + "@" + std::to_string(offset);
  v.offset = offset;
  v.display = dest ? names.nameAt(dest) : "";
  if (v.display.empty())
    v.display = (currentFile.empty() ? "stdin" : currentFile) + "[" + std::to_string(offset) + "]";
  return variable(v);
}

void SymbolicReplayer::Impl::excludeNul(const z3::expr &b) {
  domain.push_back(b != bv(0, 8));
  if (b.is_const())
    nonNulInputs.insert(b.id());
}

z3::expr SymbolicReplayer::Impl::isSpace(const z3::expr &b) {
  return b == bv(' ', 8) || b == bv('\t', 8) || b == bv('\n', 8) || b == bv('\v', 8) ||
         b == bv('\f', 8) || b == bv('\r', 8);
}

// The input byte a memory byte holds unchanged (a line fgets read, an argv string), if
// it does.
std::optional<SymbolicReplayer::Impl::InputPlace>
SymbolicReplayer::Impl::inputPlaceAt(uint64_t addr) {
  auto s = symByte.find(addr);
  if (s == symByte.end())
    return std::nullopt;
  const z3::expr &e = exprs[byteExpr(s->second)];
  if (!e.is_const())
    return std::nullopt;
  std::string name = e.decl().name().str();
  size_t at = name.rfind('@');
  if (at == std::string::npos)
    return std::nullopt;
  uint64_t offset = std::stoull(name.substr(at + 1));
  if (name.rfind("stdin@", 0) == 0)
    return InputPlace{"", 0, offset};
  if (name.rfind("file:", 0) == 0)
    return InputPlace{name.substr(5, at - 5), 0, offset};
  if (name.rfind("argv[", 0) == 0)
    return InputPlace{"", static_cast<unsigned>(std::stoul(name.substr(5))), offset};
  return std::nullopt;
}

// An sscanf conversion over a string in memory. When the bytes it parsed are input
// bytes, unchanged and in order (fgets then sscanf, atoi(argv[1])), it is the same token
// scanf would have read there and gets one variable; other parsed bytes make it concrete.
// Address 0: the number is the call's result (atoi, strtol), not stored.
void SymbolicReplayer::Impl::memToken(const Event &e, const Instance &I,
                                      const std::string &callee) {
  uint64_t src = e.a, len = e.b, addr = e.c, size = e.d;
  auto first = len ? inputPlaceAt(src) : std::nullopt;
  bool fromInput = first.has_value();
  std::optional<InputPlace> prev = first;
  for (uint64_t i = 1; fromInput && i < len; ++i) {
    auto next = inputPlaceAt(src + i);
    fromInput = next && next->follows(*prev);
    prev = next;
  }
  char conv = static_cast<char>(e.e & 0x7f);
  if (fromInput) { // the token belongs to the bytes' text
    currentFile = first->file;
    currentArg = first->argIndex;
  }
  auto done = [&] {
    currentFile.clear();
    currentArg = 0;
  };
  if (fromInput && addr == 0) {
    if (size >= 1 && size <= 8 && std::strchr("diuoxX", conv))
      set(I, z3::sext(tokenVariable(first->offset, len, size, conv),
                      bitsOf(I.inst->getType()) - static_cast<unsigned>(size * 8)));
    done();
    return;
  }
  if (fromInput) {
    token({Ev::TOKEN, first->offset, len, addr, size, e.e, {}, e.offset});
    done();
    return;
  }
  if (addr == 0)
    return; // atoi of bytes that are not input bytes in order: modelLibcCall's
  forget(addr, size);
  if (anySymbolicByte(src, len))
    run.concretizedCalls.insert(callee);
}

// The integer a conversion parsed from input bytes [offset, offset+len) of the current
// text. Shown as the variable it was read into (`qty`, `a[2]`, `p.x`), else as the
// argument it is (`argv[1]`), else as `token`.
z3::expr SymbolicReplayer::Impl::tokenVariable(uint64_t offset, uint64_t len, uint64_t size,
                                               char conv, uint64_t dest) {
  InputVar v;
  v.display = dest ? names.nameAt(dest) : "";
  std::string arg = "argv[" + std::to_string(currentArg) + "]";
  if (v.display.empty())
    v.display = currentArg && offset == 0 ? arg : "token";
  v.kind = InputVar::Kind::Token;
  v.bits = static_cast<unsigned>(size * 8);
  v.file = currentFile;
  v.argIndex = currentArg;
  v.name = (currentArg            ? "atok:" + arg + "@"
            : currentFile.empty() ? std::string("tok@")
                                  : "ftok:" + currentFile + "@") +
           std::to_string(offset) + (conv == 'f' ? ":f" : ":i") + std::to_string(v.bits);
  v.offset = offset;
  v.length = len;
  v.conv = conv;
  return variable(v);
}

void SymbolicReplayer::Impl::token(const Event &e) {
  char conv = static_cast<char>(e.e & 0x7f);
  bool afterSpace =
      e.e & 0x80; // white space was skipped right before: the first byte is not white space
  uint64_t offset = e.a, len = e.b, addr = e.c, size = e.d;
  switch (conv) {
  case 'd':
  case 'i':
  case 'u':
  case 'o':
  case 'x':
  case 'X': {
    if (size == 0 || size > 8)
      return;
    writeSymbolic(addr, tokenVariable(offset, len, size, conv, addr), 1, size);
    return;
  }
  case 'f':
  case 'F':
  case 'e':
  case 'E':
  case 'g':
  case 'G':
  case 'a':
  case 'A': {
    if (size != 4 && size != 8) { // long double stays concrete
      forget(addr, size);
      ++run.concretizations;
      return;
    }
    z3::expr x = tokenVariable(offset, len, size, 'f', addr);
    // A number a person can type: scanf reads "nan" as some NaN, not these bits.
    domain.push_back(!floatOfBits(x).mk_is_nan());
    writeSymbolic(addr, x, 1, size);
    return;
  }
  case 'c':
  case 's':
  case '[':
    return byteToken(conv, afterSpace, offset, len, addr, size);
  default:
    forget(addr, size); // long double and others stay concrete
    ++run.concretizations;
    return;
  }
}

// %c, %s and %[: each byte of the token is an input byte; a string's own NUL follows.
void SymbolicReplayer::Impl::byteToken(char conv, bool afterSpace, uint64_t offset, uint64_t len,
                                       uint64_t addr, uint64_t size) {
  if (conv == 'c') {
    for (uint64_t i = 0; i < size; ++i) {
      z3::expr b = stdinByte(offset + i, addr + i);
      if (i == 0 && afterSpace)
        domain.push_back(!isSpace(b));
      setByte(addr + i, b);
    }
    return;
  }
  for (uint64_t i = 0; i + 1 < size && i < len; ++i) {
    z3::expr b = stdinByte(offset + i, addr + i);
    setByte(addr + i, b);
    if (conv == 's') { // the token must stay one token
      domain.push_back(!isSpace(b));
      excludeNul(b);
    } else if (i == 0 && afterSpace)
      domain.push_back(!isSpace(b));
  }
  if (size > 0)
    writeConcrete(addr + size - 1, 1, {0, 0});
}

void SymbolicReplayer::Impl::output(const Instance &I, const llvm::CallInst *c, const Event &e) {
  uint64_t arg = e.c;
  if (e.d != 0) { // bytes copied from memory (%s, puts, fwrite)
    if (e.e && anySymbolicByte(e.d, e.e))
      run.outputs.push_back({I.index, e.a, e.b, e.e, arg, readBytes(e.d, e.e).first});
  } else if (arg >= 1 && arg < I.operands.size() && arg < c->arg_size()) {
    if (const z3::expr *s = sym(I.operands[arg]))
      run.outputs.push_back(
          {I.index, e.a, e.b, e.e, arg, simplified(*s, nodesOf(I.operands[arg]))});
  }
}

} // namespace rootline
