// Intrinsics: memory ones (memcpy, memset, va_start, ...) checked against their events
// and applied to the writer shadow; integer, overflow and floating-point ones computed.
#include "trace/replayer.h"

#include "rootline/error.h"

namespace rootline::replay {

void Replayer::stepIntrinsic(Frame &f, const llvm::CallInst *call, llvm::Intrinsic::ID iid) {
  Instance &I = begin(f, call);
  for (const llvm::Use &arg : call->args())
    use(f, I, arg.get());
  unsigned bits = call->getType()->isVoidTy() || call->getType()->isStructTy()
                      ? 0
                      : ops::scalarBits(call->getType(), dl_);
  if (!memoryIntrinsic(f, I, call, iid) && !integerIntrinsic(I, call, iid, bits))
    otherIntrinsic(I, call, iid);
  finish(f, I);
  ++f.pc;
}

// memcpy, memset and the va_list ones, checked against their events where they log
// one and applied to the writer shadow; markers with no value. False for others.
bool Replayer::memoryIntrinsic(Frame &f, Instance &I, const llvm::CallInst *call,
                               llvm::Intrinsic::ID iid) {
  auto arg = [&](unsigned i) { return I.operands[i].value; };
  switch (iid) {
  case llvm::Intrinsic::memcpy:
  case llvm::Intrinsic::memmove:
  case llvm::Intrinsic::memcpy_inline: {
    Event ev = expect(Ev::MEM_COPY, call);
    if (ev.a != arg(0).lo || ev.b != arg(1).lo || ev.c != arg(2).lo)
      mismatch(call, "memcpy operands differ from the trace");
    shadow_.writers(ev.b, ev.c, I.memDefs);
    written(ev.a, ev.c, I.index);
    I.addr = ev.a;
    I.size = ev.c;
    break;
  }
  case llvm::Intrinsic::memset:
  case llvm::Intrinsic::memset_inline: {
    Event ev = expect(Ev::MEM_SET, call);
    if (ev.a != arg(0).lo || ev.c != arg(2).lo)
      mismatch(call, "memset operands differ from the trace");
    written(ev.a, ev.c, I.index, nullptr, static_cast<int>(ev.b & 0xff));
    I.addr = ev.a;
    I.size = ev.c;
    break;
  }
  case llvm::Intrinsic::vastart:
    // The va_list is written natively (offsets, the register save area's address),
    // from the variadic arguments.
    written(arg(0).lo, kVaListBytes, I.index);
    I.memDefs.assign(f.varargDefs.begin(), f.varargDefs.end());
    break;
  case llvm::Intrinsic::vacopy:
    shadow_.writers(arg(1).lo, kVaListBytes, I.memDefs);
    written(arg(0).lo, kVaListBytes, I.index);
    break;
  case llvm::Intrinsic::lifetime_start:
  case llvm::Intrinsic::lifetime_end:
  case llvm::Intrinsic::stacksave:
  case llvm::Intrinsic::stackrestore:
  case llvm::Intrinsic::vaend:
  case llvm::Intrinsic::assume:
  case llvm::Intrinsic::donothing:
  case llvm::Intrinsic::experimental_noalias_scope_decl:
    break; // no value replay needs (stacksave's pointer only flows to stackrestore)
  default:
    return false;
  }
  return true;
}

// Integer intrinsics of `bits`-wide operands (abs, min and max, bit counts, byte swaps,
// arithmetic with overflow). False for others.
bool Replayer::integerIntrinsic(Instance &I, const llvm::CallInst *call, llvm::Intrinsic::ID iid,
                                unsigned bits) {
  auto arg = [&](unsigned i) { return I.operands[i].value; };
  switch (iid) {
  case llvm::Intrinsic::expect:
    I.result = arg(0);
    break;
  case llvm::Intrinsic::abs: {
    __int128 v = ops::signedOf(arg(0), bits);
    I.result = ops::truncTo(ops::fromU128(static_cast<ops::u128>(v < 0 ? -v : v)), bits);
    break;
  }
  case llvm::Intrinsic::smax:
  case llvm::Intrinsic::smin: {
    __int128 a = ops::signedOf(arg(0), bits), b = ops::signedOf(arg(1), bits);
    bool takeA = iid == llvm::Intrinsic::smax ? a >= b : a <= b;
    I.result = takeA ? ops::truncTo(arg(0), bits) : ops::truncTo(arg(1), bits);
    break;
  }
  case llvm::Intrinsic::umax:
  case llvm::Intrinsic::umin: {
    ops::u128 a = ops::toU128(ops::truncTo(arg(0), bits)),
              b = ops::toU128(ops::truncTo(arg(1), bits));
    bool takeA = iid == llvm::Intrinsic::umax ? a >= b : a <= b;
    I.result = ops::fromU128(takeA ? a : b);
    break;
  }
  case llvm::Intrinsic::ctpop:
    I.result = {
        static_cast<uint64_t>(__builtin_popcountll(arg(0).lo) + __builtin_popcountll(arg(0).hi)),
        0};
    break;
  case llvm::Intrinsic::bswap: {
    ops::u128 v = ops::toU128(ops::truncTo(arg(0), bits)), r = 0;
    for (unsigned i = 0; i < bits / 8; ++i)
      r = (r << 8) | ((v >> (8 * i)) & 0xff);
    I.result = ops::fromU128(r);
    break;
  }
  case llvm::Intrinsic::ctlz:
  case llvm::Intrinsic::cttz: {
    ops::u128 v = ops::toU128(ops::truncTo(arg(0), bits));
    unsigned n = 0;
    if (iid == llvm::Intrinsic::ctlz)
      while (n < bits && !((v >> (bits - 1 - n)) & 1))
        ++n;
    else
      while (n < bits && !((v >> n) & 1))
        ++n;
    I.result = {n, 0};
    break;
  }
  case llvm::Intrinsic::sadd_with_overflow:
  case llvm::Intrinsic::uadd_with_overflow:
  case llvm::Intrinsic::ssub_with_overflow:
  case llvm::Intrinsic::usub_with_overflow:
  case llvm::Intrinsic::smul_with_overflow:
  case llvm::Intrinsic::umul_with_overflow:
    overflowIntrinsic(I, call, iid);
    break;
  default:
    return false;
  }
  return true;
}

// {result, overflow flag} of llvm.*.with.overflow.
void Replayer::overflowIntrinsic(Instance &I, const llvm::CallInst *call, llvm::Intrinsic::ID iid) {
  auto arg = [&](unsigned i) { return I.operands[i].value; };
  llvm::Type *elem = llvm::cast<llvm::StructType>(call->getType())->getElementType(0);
  unsigned w = ops::scalarBits(elem, dl_);
  bool isSigned = iid == llvm::Intrinsic::sadd_with_overflow ||
                  iid == llvm::Intrinsic::ssub_with_overflow ||
                  iid == llvm::Intrinsic::smul_with_overflow;
  unsigned opcode =
      (iid == llvm::Intrinsic::sadd_with_overflow || iid == llvm::Intrinsic::uadd_with_overflow)
          ? llvm::Instruction::Add
      : (iid == llvm::Intrinsic::ssub_with_overflow || iid == llvm::Intrinsic::usub_with_overflow)
          ? llvm::Instruction::Sub
          : llvm::Instruction::Mul;
  ops::Fault fault;
  Val r = ops::intBinary(opcode, w, arg(0), arg(1), fault);
  bool overflow;
  if (w > 64)
    throw Error("replay: 128-bit overflow intrinsics are not supported", ExitInternal);
  if (isSigned) {
    __int128 a = ops::signedOf(arg(0), w), b = ops::signedOf(arg(1), w);
    __int128 exact = opcode == llvm::Instruction::Add   ? a + b
                     : opcode == llvm::Instruction::Sub ? a - b
                                                        : a * b;
    overflow = exact != ops::signedOf(r, w);
  } else {
    ops::u128 a = ops::toU128(ops::truncTo(arg(0), w)), b = ops::toU128(ops::truncTo(arg(1), w));
    ops::u128 exact = opcode == llvm::Instruction::Add   ? a + b
                      : opcode == llvm::Instruction::Sub ? a - b
                                                         : a * b;
    overflow = opcode == llvm::Instruction::Sub ? a < b : exact != ops::toU128(r);
  }
  uint64_t flagOffset =
      dl_.getStructLayout(llvm::cast<llvm::StructType>(call->getType()))->getElementOffset(1);
  I.result = ops::insertBytes(r, flagOffset, 1, {overflow ? 1u : 0u, 0});
}

// Floating-point intrinsics (fmuladd, is_fpclass, value_ops' floatIntrinsic) and traps.
void Replayer::otherIntrinsic(Instance &I, const llvm::CallInst *call, llvm::Intrinsic::ID iid) {
  auto arg = [&](unsigned i) { return I.operands[i].value; };
  switch (iid) {
  case llvm::Intrinsic::fmuladd:
    requireFloat(call, call->getType());
    I.result = ops::floatBinary(
        llvm::Instruction::FAdd, call->getType(),
        ops::floatBinary(llvm::Instruction::FMul, call->getType(), arg(0), arg(1)), arg(2));
    break;
  case llvm::Intrinsic::is_fpclass:
    I.result = {ops::floatClass(call->getArgOperand(0)->getType(), arg(0),
                                static_cast<unsigned>(arg(1).lo)),
                0};
    break;
  case llvm::Intrinsic::trap:
  case llvm::Intrinsic::debugtrap:
  case llvm::Intrinsic::ubsantrap: {
    Event ev;
    if (nextEvent(ev) && ev.tag == Ev::SIGNAL)
      throw CrashStop{call, static_cast<int>(ev.a), ev.b};
    mismatch(call, "trap did not stop the native run");
  }
  default: {
    Val vals[3];
    for (size_t i = 0; i < I.operands.size() && i < 3; ++i)
      vals[i] = I.operands[i].value;
    if (!call->getType()->isVoidTy() && !ops::floatIntrinsic(iid, call->getType(), vals, I.result))
      throw Error("replay: unsupported intrinsic " + call->getCalledFunction()->getName().str() +
                      " at " + ModuleIndex::describe(call),
                  ExitInternal);
    break;
  }
  }
}

} // namespace rootline::replay
