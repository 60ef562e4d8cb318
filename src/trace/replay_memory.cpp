// Memory: loads and stores checked against the logged addresses, atomics, and the writer
// shadow (shadow.h): for each byte the instance that last wrote it, which gives every
// load its definitions. A logged write that lands on a local replay models itself is
// applied to the local by hand.
#include "trace/replayer.h"

#include "rootline/error.h"

#include <llvm/ADT/StringExtras.h>

#include <cstring>

namespace rootline::replay {

// A logged write of [addr, addr+len) by instance `writer`. Where it lands on a local
// replay models itself (an overflow from a neighbouring object: such locals are never
// addressed otherwise), the local takes the bytes: `value` (a store's value),
// `fill` (a memset's byte), or, when replay cannot know them (a libc call's write),
// it keeps its old bytes and the run is named in clobberedLocals; a later branch
// that depends on them then ends replay as a mismatch.
void Replayer::written(uint64_t addr, uint64_t len, uint64_t writer, const Val *value, int fill) {
  if (!shadow_.set(addr, len, writer))
    return;
  for (Frame &frame : stack_)
    for (auto &[al, slot] : frame.locals) {
      uint64_t lo = std::max(addr, slot.addr), hi = std::min(addr + len, slot.addr + slot.size);
      if (lo >= hi)
        continue;
      unsigned char bytes[16] = {}, in[16] = {};
      std::memcpy(bytes, &slot.v.lo, 8);
      std::memcpy(bytes + 8, &slot.v.hi, 8);
      if (value) {
        std::memcpy(in, &value->lo, 8);
        std::memcpy(in + 8, &value->hi, 8);
      }
      bool known = value || fill >= 0;
      for (uint64_t b = lo; b < hi && b - slot.addr < 16; ++b)
        if (known)
          bytes[b - slot.addr] =
              value && b - addr < 16 ? in[b - addr] : static_cast<unsigned char>(fill);
      if (known) {
        std::memcpy(&slot.v.lo, bytes, 8);
        std::memcpy(&slot.v.hi, bytes + 8, 8);
      }
      slot.def = writer;
      shadow_.set(slot.addr, slot.size, kModelledLocalMark);
      std::string name = ModuleIndex::describe(al);
      result_.clobberedLocals.push_back(
          name +
          (known ? " overwritten by instance " : " overwritten (bytes unknown) by instance ") +
          std::to_string(writer));
    }
}

// The stores of the modelled locals that [addr, addr+len) overlaps.
void Replayer::localWriters(uint64_t addr, uint64_t len, llvm::SmallVectorImpl<uint64_t> &out) {
  for (const Frame &frame : stack_)
    for (const auto &[al, slot] : frame.locals)
      if (std::max(addr, slot.addr) < std::min(addr + len, slot.addr + slot.size) &&
          slot.def != kNoDef && std::find(out.begin(), out.end(), slot.def) == out.end())
        out.push_back(slot.def);
}

Val Replayer::bytesToVal(std::string_view bytes) {
  unsigned char buf[16] = {};
  std::memcpy(buf, bytes.data(), std::min<size_t>(16, bytes.size()));
  Val v;
  std::memcpy(&v.lo, buf, 8);
  std::memcpy(&v.hi, buf + 8, 8);
  return v;
}

void Replayer::stepLoad(Frame &f, const llvm::LoadInst *ld) {
  Instance &I = begin(f, ld);
  uint64_t addr = use(f, I, ld->getPointerOperand()).value.lo;
  I.addr = addr;
  I.size = dl_.getTypeStoreSize(ld->getType());
  if (auto *al = llvm::dyn_cast<llvm::AllocaInst>(ld->getPointerOperand());
      al && index_.modelledLocal(al)) {
    const LocalSlot &content = f.locals[al];
    I.result = ops::truncTo(content.v, static_cast<unsigned>(std::min<uint64_t>(128, I.size * 8)));
    if (content.def != kNoDef)
      I.memDefs.push_back(content.def);
    else
      I.memUnwritten = true;
  } else {
    Event ev = expect(Ev::LOAD, ld, Ev::LOAD_WIDE);
    if (ev.a != addr)
      mismatch(ld, "trace loads from 0x" + llvm::utohexstr(ev.a) + ", replay computed 0x" +
                       llvm::utohexstr(addr));
    I.result =
        ev.tag == Ev::LOAD
            ? ops::truncTo({ev.b, 0}, static_cast<unsigned>(std::min<uint64_t>(64, I.size * 8)))
            : bytesToVal(ev.bytes);
    bool local = false;
    I.memUnwritten = shadow_.writers(addr, I.size, I.memDefs, &local);
    if (local) // read past a neighbour into a modelled local: its store is the writer
      localWriters(addr, I.size, I.memDefs);
  }
  finish(f, I);
  ++f.pc;
}

void Replayer::stepStore(Frame &f, const llvm::StoreInst *st) {
  Instance &I = begin(f, st);
  Val value = use(f, I, st->getValueOperand()).value;
  uint64_t addr = use(f, I, st->getPointerOperand()).value.lo;
  I.addr = addr;
  I.size = dl_.getTypeStoreSize(st->getValueOperand()->getType());
  if (auto *al = llvm::dyn_cast<llvm::AllocaInst>(st->getPointerOperand());
      al && index_.modelledLocal(al)) {
    LocalSlot &slot = f.locals[al];
    slot.v = value;
    slot.def = I.index;
  } else {
    Event ev = expect(Ev::STORE, st);
    if (ev.a != addr)
      mismatch(st, "trace stores to 0x" + llvm::utohexstr(ev.a) + ", replay computed 0x" +
                       llvm::utohexstr(addr));
    crashIfSignalNext(st);
    written(addr, I.size, I.index, &value);
  }
  finish(f, I);
  ++f.pc;
}

// atomicrmw and cmpxchg: the write is logged before (STORE), the old value after
// (LOAD); the new value is recomputed.
void Replayer::stepAtomic(Frame &f, const llvm::Instruction *inst) {
  Instance &I = begin(f, inst);
  auto *rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(inst);
  auto *cx = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(inst);
  const llvm::Value *ptr = rmw ? rmw->getPointerOperand() : cx->getPointerOperand();
  llvm::Type *type = rmw ? rmw->getType() : cx->getNewValOperand()->getType();
  requireScalar(inst, type);
  uint64_t addr = use(f, I, ptr).value.lo;
  Val operand = use(f, I, rmw ? rmw->getValOperand() : cx->getCompareOperand()).value;
  Val replacement = cx ? use(f, I, cx->getNewValOperand()).value : Val{};
  I.addr = addr;
  I.size = dl_.getTypeStoreSize(type);
  Event st = expect(Ev::STORE, inst);
  if (st.a != addr)
    mismatch(inst, "trace writes 0x" + llvm::utohexstr(st.a) + ", replay computed 0x" +
                       llvm::utohexstr(addr));
  crashIfSignalNext(inst);
  Event ld = expect(Ev::LOAD, inst, Ev::LOAD_WIDE);
  unsigned bits = ops::scalarBits(type, dl_);
  Val old =
      ld.tag == Ev::LOAD ? ops::truncTo({ld.b, 0}, std::min(64u, bits)) : bytesToVal(ld.bytes);
  I.memUnwritten = shadow_.writers(addr, I.size, I.memDefs);
  bool writes = true;
  Val now = old;
  if (rmw) {
    now = atomicResult(rmw, type, bits, old, operand);
    I.result = old;
  } else {
    writes = ops::truncTo(old, bits) == ops::truncTo(operand, bits);
    now = replacement;
    uint64_t flagOffset =
        dl_.getStructLayout(llvm::cast<llvm::StructType>(cx->getType()))->getElementOffset(1);
    I.result = ops::insertBytes(old, flagOffset, 1, {writes ? 1u : 0u, 0});
  }
  if (writes)
    written(addr, I.size, I.index, &now);
  finish(f, I);
  ++f.pc;
}

Val Replayer::atomicResult(const llvm::AtomicRMWInst *rmw, llvm::Type *type, unsigned bits, Val old,
                           Val v) {
  using Op = llvm::AtomicRMWInst::BinOp;
  ops::Fault fault;
  auto binary = [&](unsigned opcode) { return ops::intBinary(opcode, bits, old, v, fault); };
  switch (rmw->getOperation()) {
  case Op::Xchg:
    return v;
  case Op::Add:
    return binary(llvm::Instruction::Add);
  case Op::Sub:
    return binary(llvm::Instruction::Sub);
  case Op::And:
    return binary(llvm::Instruction::And);
  case Op::Or:
    return binary(llvm::Instruction::Or);
  case Op::Xor:
    return binary(llvm::Instruction::Xor);
  case Op::Nand:
    return ops::truncTo(ops::fromU128(~ops::toU128(binary(llvm::Instruction::And))), bits);
  case Op::Max:
  case Op::Min: {
    __int128 a = ops::signedOf(old, bits), b = ops::signedOf(v, bits);
    return (rmw->getOperation() == Op::Max ? a >= b : a <= b) ? old : v;
  }
  case Op::UMax:
  case Op::UMin: {
    ops::u128 a = ops::toU128(ops::truncTo(old, bits)), b = ops::toU128(ops::truncTo(v, bits));
    return (rmw->getOperation() == Op::UMax ? a >= b : a <= b) ? old : v;
  }
  case Op::FAdd:
    return ops::floatBinary(llvm::Instruction::FAdd, type, old, v);
  case Op::FSub:
    return ops::floatBinary(llvm::Instruction::FSub, type, old, v);
  default:
    throw Error(std::string("replay: unsupported atomicrmw operation at ") +
                    ModuleIndex::describe(rmw),
                ExitInternal);
  }
}

} // namespace rootline::replay
