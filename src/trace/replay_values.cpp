// Values: operands, constants (globals' logged addresses, constant expressions,
// aggregate images), and what comparisons, arithmetic, casts and aggregate operations
// compute (value_ops.h).
#include "trace/replayer.h"

#include "rootline/error.h"

#include <llvm/IR/Constants.h>

namespace rootline::replay {

Slot Replayer::operand(Frame &f, const llvm::Value *v) {
  if (auto *c = llvm::dyn_cast<llvm::Constant>(v))
    return {constant(c), kNoDef};
  auto it = f.slots.find(v);
  if (it == f.slots.end()) {
    if (llvm::isa<llvm::MetadataAsValue>(v) || llvm::isa<llvm::BasicBlock>(v) ||
        llvm::isa<llvm::InlineAsm>(v))
      return {};
    throw Error("replay: value used before it was computed in " + f.fn->getName().str(),
                ExitInternal);
  }
  return it->second;
}

uint64_t Replayer::globalAddress(const llvm::GlobalValue *gv) {
  if (auto *fn = llvm::dyn_cast<llvm::Function>(gv)) {
    for (const auto &[addr, f] : funcAt_)
      if (f == fn)
        return addr;
    throw Error("replay: no address logged for function " + fn->getName().str(), ExitInternal);
  }
  if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv)) {
    uint32_t i = index_.indexOf(var);
    if (i < globalKnown_.size() && globalKnown_[i])
      return globalAddr_[i];
    throw Error("replay: no address logged for global " + var->getName().str(), ExitInternal);
  }
  if (auto *alias = llvm::dyn_cast<llvm::GlobalAlias>(gv))
    return constant(alias->getAliasee()).lo;
  throw Error("replay: unsupported global " + gv->getName().str(), ExitInternal);
}

Val Replayer::constant(const llvm::Constant *c) {
  auto it = constants_.find(c);
  if (it != constants_.end())
    return it->second;
  Val v = computeConstant(c);
  constants_[c] = v;
  return v;
}

Val Replayer::computeConstant(const llvm::Constant *c) {
  if (auto *ci = llvm::dyn_cast<llvm::ConstantInt>(c)) {
    const llvm::APInt &ap = ci->getValue();
    Val v;
    v.lo = ap.extractBitsAsZExtValue(std::min(64u, ap.getBitWidth()), 0);
    if (ap.getBitWidth() > 64)
      v.hi = ap.extractBitsAsZExtValue(std::min(64u, ap.getBitWidth() - 64), 64);
    return v;
  }
  if (auto *cf = llvm::dyn_cast<llvm::ConstantFP>(c)) {
    llvm::APInt bits = cf->getValueAPF().bitcastToAPInt();
    Val v;
    v.lo = bits.extractBitsAsZExtValue(std::min(64u, bits.getBitWidth()), 0);
    if (bits.getBitWidth() > 64)
      v.hi = bits.extractBitsAsZExtValue(std::min(64u, bits.getBitWidth() - 64), 64);
    return v;
  }
  if (llvm::isa<llvm::ConstantPointerNull>(c) || llvm::isa<llvm::UndefValue>(c) ||
      llvm::isa<llvm::ConstantAggregateZero>(c) || llvm::isa<llvm::ConstantTokenNone>(c))
    return {};
  if (auto *gv = llvm::dyn_cast<llvm::GlobalValue>(c))
    return {globalAddress(gv), 0};
  if (auto *ce = llvm::dyn_cast<llvm::ConstantExpr>(c))
    return constantExpr(ce);
  if (llvm::isa<llvm::ConstantStruct>(c) || llvm::isa<llvm::ConstantArray>(c) ||
      llvm::isa<llvm::ConstantDataSequential>(c) || llvm::isa<llvm::ConstantVector>(c)) {
    Val image;
    fillImage(c, 0, image);
    return image;
  }
  if (auto *ba = llvm::dyn_cast<llvm::BlockAddress>(c))
    // A label's address (`&&label`): its native value is a code address replay does
    // not know; only computed gotos use it, and they log which label they took.
    return {0xb10c000000000000ull | reinterpret_cast<uintptr_t>(ba->getBasicBlock()), 0};
  throw Error("replay: unsupported constant in the program", ExitInternal);
}

void Replayer::fillImage(const llvm::Constant *c, uint64_t offset, Val &image) {
  llvm::Type *t = c->getType();
  if (t->isStructTy()) {
    const llvm::StructLayout *layout = dl_.getStructLayout(llvm::cast<llvm::StructType>(t));
    for (unsigned i = 0; i < t->getStructNumElements(); ++i)
      fillImage(c->getAggregateElement(i), offset + layout->getElementOffset(i), image);
  } else if (t->isArrayTy() || t->isVectorTy()) {
    llvm::Type *elem = t->isArrayTy() ? t->getArrayElementType()
                                      : llvm::cast<llvm::VectorType>(t)->getElementType();
    uint64_t n = t->isArrayTy() ? t->getArrayNumElements()
                                : llvm::cast<llvm::FixedVectorType>(t)->getNumElements();
    uint64_t stride = dl_.getTypeAllocSize(elem);
    for (uint64_t i = 0; i < n; ++i)
      fillImage(c->getAggregateElement(static_cast<unsigned>(i)), offset + i * stride, image);
  } else {
    image = ops::insertBytes(image, offset, dl_.getTypeStoreSize(t), constant(c));
  }
}

Val Replayer::constantExpr(const llvm::ConstantExpr *ce) {
  unsigned op = ce->getOpcode();
  if (op == llvm::Instruction::GetElementPtr)
    return {
        gepAddress(llvm::cast<llvm::GEPOperator>(ce),
                   [&](const llvm::Value *v) { return constant(llvm::cast<llvm::Constant>(v)); }),
        0};
  if (ce->isCast())
    return ops::cast(op, ce->getOperand(0)->getType(), ce->getType(), constant(ce->getOperand(0)),
                     dl_);
  if (llvm::Instruction::isBinaryOp(op)) {
    ops::Fault fault;
    return ops::intBinary(op, ops::scalarBits(ce->getType(), dl_), constant(ce->getOperand(0)),
                          constant(ce->getOperand(1)), fault);
  }
  throw Error(std::string("replay: unsupported constant expression ") + ce->getOpcodeName(),
              ExitInternal);
}

// An instruction that only computes a value from its operands; the values of
// comparisons and of aggregate operations have helpers of their own.
void Replayer::stepValue(Frame &f, const llvm::Instruction *inst) {
  switch (inst->getOpcode()) {
  case llvm::Instruction::GetElementPtr: {
    Instance &I = begin(f, inst);
    for (const llvm::Use &u : inst->operands())
      use(f, I, u.get());
    I.result = {gepAddress(llvm::cast<llvm::GEPOperator>(inst),
                           [&](const llvm::Value *v) { return operand(f, v).v; }),
                0};
    break;
  }
  case llvm::Instruction::ICmp:
  case llvm::Instruction::FCmp:
    computeCompare(f, inst);
    break;
  case llvm::Instruction::Select: {
    Instance &I = begin(f, inst);
    requireScalar(inst, inst->getOperand(0)->getType());
    Val c = use(f, I, inst->getOperand(0)).value;
    Val t = use(f, I, inst->getOperand(1)).value, e = use(f, I, inst->getOperand(2)).value;
    I.result = (c.lo & 1) ? t : e;
    break;
  }
  case llvm::Instruction::Freeze: {
    Instance &I = begin(f, inst);
    I.result = use(f, I, inst->getOperand(0)).value;
    break;
  }
  case llvm::Instruction::FNeg: {
    Instance &I = begin(f, inst);
    requireFloat(inst, inst->getType());
    I.result = ops::floatNeg(inst->getType(), use(f, I, inst->getOperand(0)).value);
    break;
  }
  case llvm::Instruction::ExtractValue:
  case llvm::Instruction::InsertValue:
    computeAggregate(f, inst);
    break;
  default:
    if (inst->isCast()) {
      Instance &I = begin(f, inst);
      requireScalar(inst, inst->getType());
      Val v = use(f, I, inst->getOperand(0)).value;
      I.result =
          ops::cast(inst->getOpcode(), inst->getOperand(0)->getType(), inst->getType(), v, dl_);
      break;
    }
    throw Error(std::string("replay: unsupported instruction `") + inst->getOpcodeName() + "` at " +
                    ModuleIndex::describe(inst),
                ExitInternal);
  }
  finish(f, cur_);
  ++f.pc;
}

// icmp and fcmp: their result, as an i1.
void Replayer::computeCompare(Frame &f, const llvm::Instruction *inst) {
  Instance &I = begin(f, inst);
  if (auto *cmp = llvm::dyn_cast<llvm::ICmpInst>(inst)) {
    requireScalar(inst, cmp->getOperand(0)->getType());
    Val a = use(f, I, cmp->getOperand(0)).value, b = use(f, I, cmp->getOperand(1)).value;
    I.result = {ops::intCompare(cmp->getPredicate(),
                                ops::scalarBits(cmp->getOperand(0)->getType(), dl_), a, b),
                0};
    return;
  }
  auto *cmp = llvm::cast<llvm::FCmpInst>(inst);
  requireFloat(inst, cmp->getOperand(0)->getType());
  Val a = use(f, I, cmp->getOperand(0)).value, b = use(f, I, cmp->getOperand(1)).value;
  I.result = {ops::floatCompare(cmp->getPredicate(), cmp->getOperand(0)->getType(), a, b), 0};
}

// extractvalue and insertvalue on an aggregate kept as its bytes (at most 16).
void Replayer::computeAggregate(Frame &f, const llvm::Instruction *inst) {
  Instance &I = begin(f, inst);
  if (auto *ev = llvm::dyn_cast<llvm::ExtractValueInst>(inst)) {
    Val agg = use(f, I, ev->getAggregateOperand()).value;
    uint64_t off = aggregateOffset(ev->getAggregateOperand()->getType(), ev->getIndices());
    I.result = ops::extractBytes(agg, off, dl_.getTypeStoreSize(ev->getType()));
    return;
  }
  auto *iv = llvm::cast<llvm::InsertValueInst>(inst);
  Val agg = use(f, I, iv->getAggregateOperand()).value;
  Val part = use(f, I, iv->getInsertedValueOperand()).value;
  uint64_t off = aggregateOffset(iv->getType(), iv->getIndices());
  I.result = ops::insertBytes(agg, off,
                              dl_.getTypeStoreSize(iv->getInsertedValueOperand()->getType()), part);
}

void Replayer::requireScalar(const llvm::Instruction *inst, const llvm::Type *t) {
  if (t->isVectorTy() || t->isStructTy() || t->isArrayTy() ||
      (t->isIntegerTy() && t->getIntegerBitWidth() > 128))
    throw Error("replay: unsupported vector or aggregate operation at " +
                    ModuleIndex::describe(inst),
                ExitInternal);
}

void Replayer::requireFloat(const llvm::Instruction *inst, const llvm::Type *t) {
  if (!ops::isSupportedFloat(t))
    throw Error("replay: unsupported floating-point type at " + ModuleIndex::describe(inst),
                ExitInternal);
}

uint64_t Replayer::aggregateOffset(llvm::Type *t, llvm::ArrayRef<unsigned> indices) {
  uint64_t off = 0;
  for (unsigned i : indices) {
    if (auto *st = llvm::dyn_cast<llvm::StructType>(t)) {
      off += dl_.getStructLayout(st)->getElementOffset(i);
      t = st->getElementType(i);
    } else {
      llvm::Type *elem = t->isArrayTy() ? t->getArrayElementType()
                                        : llvm::cast<llvm::VectorType>(t)->getElementType();
      off += i * dl_.getTypeAllocSize(elem);
      t = elem;
    }
  }
  if (off + dl_.getTypeStoreSize(t) > 16)
    throw Error("replay: aggregate value wider than 16 bytes is not supported", ExitInternal);
  return off;
}

void Replayer::stepBinary(Frame &f, const llvm::Instruction *inst) {
  Instance &I = begin(f, inst);
  llvm::Type *t = inst->getType();
  Val a = use(f, I, inst->getOperand(0)).value, b = use(f, I, inst->getOperand(1)).value;
  if (t->isFloatingPointTy()) {
    requireFloat(inst, t);
    I.result = ops::floatBinary(inst->getOpcode(), t, a, b);
  } else {
    requireScalar(inst, t);
    ops::Fault fault;
    I.result = ops::intBinary(inst->getOpcode(), ops::scalarBits(t, dl_), a, b, fault);
    if (fault != ops::Fault::None) {
      Event ev;
      if (nextEvent(ev) && ev.tag == Ev::SIGNAL)
        throw CrashStop{inst, static_cast<int>(ev.a), ev.b};
      mismatch(inst, "replay computed a division trap but the native run did not stop here");
    }
  }
  finish(f, I);
  ++f.pc;
}

} // namespace rootline::replay
