// Calls: intrinsics, and calls into uninstrumented code (libc), whose logged effects
// (input, memory written, heap blocks, output) update symbolic memory; a result that no
// model gives an expression is concrete, and the report names the function.
#include "symbolic/symbolic_replayer.h"

#include "rootline/module_index.h"

#include <llvm/IR/IntrinsicInst.h>

#include <set>

namespace rootline {

void SymbolicReplayer::Impl::call(const Instance &I, const llvm::CallInst *c) {
  if (I.external)
    return external(I, c);
  const llvm::Function *callee = c->getCalledFunction();
  if (!callee || !callee->isIntrinsic())
    return; // parameters flow through operand defs
  switch (callee->getIntrinsicID()) {
  case llvm::Intrinsic::memcpy:
  case llvm::Intrinsic::memmove:
    copyBytes(I.operands[0].value.lo, I.operands[1].value.lo, I.operands[2].value.lo);
    return;
  case llvm::Intrinsic::memset:
    if (sym(I.operands[1]))
      concretize();
    for (uint64_t i = 0; i < I.operands[2].value.lo; ++i)
      writeConcrete(I.operands[0].value.lo + i, 1, {I.operands[1].value.lo & 0xff, 0});
    return;
  case llvm::Intrinsic::expect:
    if (const z3::expr *e = sym(I.operands[0]))
      set(I, *e, nodesOf(I.operands[0]));
    return;
  case llvm::Intrinsic::abs:
  case llvm::Intrinsic::smax:
  case llvm::Intrinsic::smin:
  case llvm::Intrinsic::umax:
  case llvm::Intrinsic::umin:
    return minMaxIntrinsic(I, c, callee->getIntrinsicID());
  default:
    if (anySymbolic(I) && !modelFloatFunction(I, c, callee->getName().str()))
      concretize();
    return;
  }
}

// abs, smax, smin, umax and umin of symbolic operands.
void SymbolicReplayer::Impl::minMaxIntrinsic(const Instance &I, const llvm::CallInst *c,
                                             llvm::Intrinsic::ID id) {
  if (!anySymbolic(I))
    return;
  unsigned bits = bitsOf(c->getType());
  z3::expr a = val(I.operands[0], bits);
  switch (id) {
  case llvm::Intrinsic::abs:
    set(I, z3::ite(a < 0, -a, a));
    break;
  case llvm::Intrinsic::smax: {
    z3::expr b = val(I.operands[1], bits);
    set(I, z3::ite(a >= b, a, b));
    break;
  }
  case llvm::Intrinsic::smin: {
    z3::expr b = val(I.operands[1], bits);
    set(I, z3::ite(a <= b, a, b));
    break;
  }
  case llvm::Intrinsic::umax: {
    z3::expr b = val(I.operands[1], bits);
    set(I, z3::ite(z3::uge(a, b), a, b));
    break;
  }
  default: {
    z3::expr b = val(I.operands[1], bits);
    set(I, z3::ite(z3::ule(a, b), a, b));
    break;
  }
  }
}

// fabs, floor, sqrt, fmin, ... (float_ops.h): as intrinsics and as libm calls.
bool SymbolicReplayer::Impl::modelFloatFunction(const Instance &I, const llvm::CallInst *c,
                                                const std::string &name) {
  unsigned bits = bitsOf(c->getType());
  if (!wanted || !isSymbolicFloat(c->getType()) || !anySymbolic(I))
    return false;
  std::vector<z3::expr> args;
  for (unsigned k = 0; k < c->arg_size() && k < I.operands.size(); ++k) {
    if (bitsOf(c->getArgOperand(k)->getType()) != bits)
      return false;
    args.push_back(val(I.operands[k], bits));
  }
  auto r = floatFunction(name, args, bits);
  if (!r)
    return false;
  set(I, *r, floatNodes(I, bits));
  return true;
}

std::string SymbolicReplayer::Impl::calleeName(const llvm::CallInst *c) {
  const llvm::Function *f = c->getCalledFunction();
  return f ? f->getName().str() : "";
}

void SymbolicReplayer::Impl::external(const Instance &I, const llvm::CallInst *c) {
  std::string name = calleeName(c);
  // Symbolic bytes the call read and then memory it rewrote opaquely (qsort's
  // permutation): what it wrote stays concrete, which the report should say.
  bool readSymbolic = false;
  for (const Event &e : I.effects)
    readSymbolic |= e.tag == Ev::MEM_READ && anySymbolicByte(e.a, e.b);
  bool wroteOpaque = callEffects(I, c, name);
  checkAllocSize(I, name);
  if (readSymbolic && wroteOpaque)
    run.concretizedCalls.insert(name.empty() ? "<indirect call>" : name);
  noteCtypeLocation(I, name); // wanted or not: later table look-ups need it
  bool modelled = wanted && (modelFloatFunction(I, c, name) || modelLibcCall(I, name));
  if (unmodelledResult(I, c, name, readSymbolic, modelled)) {
    concretize();
    run.concretizedCalls.insert(name.empty() ? "<indirect call>" : name);
  }
}

// The call's logged effects, in order: input sources, input bytes and tokens, memory
// copied, set and rewritten, heap blocks, output. True when it rewrote memory opaquely.
bool SymbolicReplayer::Impl::callEffects(const Instance &I, const llvm::CallInst *c,
                                         const std::string &name) {
  bool lineInput = name == "fgets" || name == "fgets_unlocked" || name == "getline";
  bool wroteOpaque = false;
  for (const Event &e : I.effects) {
    bool input = e.tag == Ev::TOKEN || e.tag == Ev::INPUT || e.tag == Ev::INPUT_CHAR;
    switch (e.tag) {
    case Ev::SOURCE: {
      auto f = sourceFiles.find(e.a);
      currentFile = f == sourceFiles.end() ? "#" + std::to_string(e.a) : f->second;
      break;
    }
    case Ev::OPEN:
      if (e.a)
        sourceFiles[e.a] = std::string(e.bytes);
      break;
    case Ev::TOKEN:
      token(e);
      break;
    case Ev::MEM_TOKEN:
      memToken(e, I, name);
      break;
    case Ev::INPUT:
      for (uint64_t i = 0; i < e.c; ++i) {
        z3::expr b = stdinByte(e.a + i, e.b + i);
        setByte(e.b + i, b);
        // A line of text has no line end before its last byte, and no NUL anywhere
        // (a NUL would end the C string early: no person types one).
        if (lineInput && i + 1 < e.c)
          domain.push_back(b != bv('\n', 8));
        if (lineInput)
          excludeNul(b);
      }
      break;
    case Ev::INPUT_CHAR:
      if (bitsOf(c->getType()) >= 8)
        set(I, z3::zext(stdinByte(e.a), bitsOf(c->getType()) - 8));
      break;
    case Ev::MEM_COPY:
      copyBytes(e.a, e.b, e.c);
      break;
    case Ev::MEM_SET:
      for (uint64_t i = 0; i < e.c; ++i)
        writeConcrete(e.a + i, 1, {e.b, 0});
      break;
    case Ev::MEM_WRITE:
      forget(e.a, e.b);
      wroteOpaque = true;
      break;
    case Ev::HEAP_ALLOC:
      addObject(e.a, e.b);
      break;
    case Ev::OUTPUT:
      output(I, c, e);
      break;
    default:
      break;
    }
    if (input)
      currentFile.clear();
  }
  return wroteOpaque;
}

// malloc, calloc or realloc asked for a negative size, or for one the input could make
// negative (or overflow, in calloc).
void SymbolicReplayer::Impl::checkAllocSize(const Instance &I, const std::string &name) {
  if (name == "malloc" || name == "calloc" || name == "realloc") {
    size_t sizeArg = name == "realloc" ? 1 : 0;
    if (sizeArg < I.operands.size() && static_cast<int64_t>(I.operands[sizeArg].value.lo) < 0)
      run.violations.push_back(
          {"bad-alloc-size", I.index, I.inst,
           "asks " + name + " for " +
               std::to_string(static_cast<int64_t>(I.operands[sizeArg].value.lo)) +
               " bytes (a negative size)"});
  }
  if ((name == "malloc" || name == "calloc" || name == "realloc") && anySymbolic(I)) {
    // A size that is negative as a signed value (e.g. a negative count times
    // sizeof) or that overflows in calloc.
    size_t sizeArg = name == "realloc" ? 1 : 0;
    z3::expr size = val(I.operands[sizeArg], 64);
    z3::expr bad = size < 0;
    if (name == "calloc") {
      z3::expr n = val(I.operands[0], 64), each = val(I.operands[1], 64);
      bad = bad || n < 0 || each < 0 || !z3::bvmul_no_overflow(n, each, false);
    }
    check("bad-alloc-size", I, bad);
  }
}

// A result computed from symbolic arguments or bytes that no model gave an
// expression is concrete: name the function. (The copying functions return their
// destination, which no byte decides; the output functions a count nobody branches
// on, and a call that crashed midway produced no output event.)
bool SymbolicReplayer::Impl::unmodelledResult(const Instance &I, const llvm::CallInst *c,
                                              const std::string &name, bool readSymbolic,
                                              bool modelled) {
  bool producesOutput = false;
  for (const Event &e : I.effects)
    producesOutput |= e.tag == Ev::OUTPUT;
  static const std::set<std::string> returnsDestination = {
      "memcpy",   "memmove",        "memset",         "strcpy",         "strncpy",
      "strcat",   "strncat",        "fgets",          "printf",         "fprintf",
      "puts",     "fputs",          "fwrite",         "write",          "vprintf",
      "vfprintf", "fgets_unlocked", "fputs_unlocked", "fwrite_unlocked"};
  // sscanf's and atoi's parsed numbers are handled per conversion (memToken).
  bool parsed = std::any_of(I.effects.begin(), I.effects.end(),
                            [](const Event &e) { return e.tag == Ev::MEM_TOKEN && e.c != 0; });
  bool fromBytes = readSymbolic && !parsed && !returnsDestination.count(name);
  return (!producesOutput && !modelled && !c->getType()->isVoidTy() && !valueOf.count(I.index) &&
          (anySymbolic(I) || fromBytes)) ||
         unseenSymbolicRead(I, c, name);
}

// A libc function rootline does not wrap logs nothing of what it reads or writes: when
// a pointer argument points at symbolic bytes, what it computes from them (strtok's
// token, strspn's count) is concrete.
bool SymbolicReplayer::Impl::unseenSymbolicRead(const Instance &I, const llvm::CallInst *c,
                                                const std::string &name) {
  const llvm::Function *f = c->getCalledFunction();
  if (!f || !f->isDeclaration() || f->isIntrinsic() || isWrappedLibcFunction(name) ||
      name.rfind("__ctype_", 0) == 0)
    return false;
  for (unsigned k = 0; k < c->arg_size() && k < I.operands.size(); ++k) {
    if (!c->getArgOperand(k)->getType()->isPointerTy())
      continue;
    uint64_t p = I.operands[k].value.lo, base = 0;
    Object *obj = objectAt(p, &base);
    if (!obj)
      continue;
    if (obj->array)
      return true;
    for (uint64_t a = p; a < base + obj->size && a < p + 256; ++a)
      if (symByte.count(a))
        return true;
  }
  return false;
}

} // namespace rootline
