// The tracing instrumentation: every instruction keeps the id ModuleIndex gives it in
// the original module, and the calls inserted here log the events replay needs
// (docs/trace-format.md). Loads, stores, allocas, branches, switches, entries, returns
// and calls into uninstrumented code are logged; arithmetic is recomputed by replay, and
// so are what modelled locals hold, where anchored locals lie (anchoredLocals) and
// which way silent branches go (silentBranches).
#include "rootline/module_index.h"

#include <algorithm>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>
#include <llvm/Transforms/Utils/PromoteMemToReg.h>

namespace rootline {

bool isReplayModelledLocal(const llvm::Value *pointer) {
  auto *al = llvm::dyn_cast<llvm::AllocaInst>(pointer);
  return al && !al->isArrayAllocation() && al->getAllocatedType()->isSingleValueType() &&
         llvm::isAllocaPromotable(al);
}

bool logsArguments(const llvm::Function &fn) {
  if (fn.getName() == "main" || fn.hasAddressTaken())
    return true;
  for (const llvm::Argument &a : fn.args())
    if (a.hasByValAttr())
      return true;
  return false;
}

bool isSetjmpLike(llvm::StringRef callee) {
  return callee == "setjmp" || callee == "_setjmp" || callee == "__sigsetjmp" ||
         callee == "sigsetjmp";
}

bool isLongjmpLike(llvm::StringRef callee) {
  return callee == "longjmp" || callee == "_longjmp" || callee == "siglongjmp" ||
         callee == "__longjmp_chk";
}

bool isWrappedLibcFunction(llvm::StringRef name) {
  static const llvm::StringSet<> names = {
#define RL_WRAP(n) #n,
#include "rl_wrapped.def"
#undef RL_WRAP
  };
  return names.contains(name);
}

namespace {

class Instrumenter {
public:
  Instrumenter(llvm::Module &m, const ModuleIndex &index)
      : m_(m), index_(index), dl_(m.getDataLayout()), ctx_(m.getContext()) {
    i8_ = llvm::Type::getInt8Ty(ctx_);
    i32_ = llvm::Type::getInt32Ty(ctx_);
    i64_ = llvm::Type::getInt64Ty(ctx_);
    ptr_ = llvm::PointerType::getUnqual(ctx_);
    void_ = llvm::Type::getVoidTy(ctx_);
    br_ = hook("__rl_br", {i8_});
    switch_ = hook("__rl_switch", {i64_});
    enter_ = hook("__rl_enter", {i32_});
    resume_ = hook("__rl_resume", {ptr_});
    enterFrame_ = m_.getOrInsertFunction("__rl_enter_frame",
                                         llvm::FunctionType::get(i32_, {i32_, ptr_}, false));
    layout_ =
        m_.getOrInsertFunction("__rl_layout", llvm::FunctionType::get(void_, {i32_, i32_}, true));
    arg_ = hook("__rl_arg", {i64_});
    ret_ = hook("__rl_ret", {i32_});
    load_ = hook("__rl_load", {ptr_, i64_});
    loadWide_ = hook("__rl_load_wide", {ptr_, i64_});
    store_ = hook("__rl_store", {ptr_});
    alloca_ = hook("__rl_alloca", {ptr_, i64_});
    allocaLocal_ = hook("__rl_alloca_local", {ptr_, i64_});
    extRet_ = hook("__rl_ext_ret", {i32_, i64_});
    extRetWide_ = hook("__rl_ext_ret_wide", {i32_, ptr_, i64_});
    main_ = hook("__rl_main", {i32_, ptr_});
    mainReturn_ = hook("__rl_main_return", {i32_});
    copy_ = hook("__rl_intrinsic_copy", {ptr_, ptr_, i64_});
    set_ = hook("__rl_intrinsic_set", {ptr_, i8_, i64_});
  }

  void run(const std::string &key) {
    std::vector<llvm::Function *> bodies;
    for (llvm::Function &fn : m_)
      if (!fn.isDeclaration() && !fn.getName().starts_with("__rl_"))
        bodies.push_back(&fn);
    for (llvm::Function *fn : bodies)
      instrumentFunction(*fn);
    wrapTakenAddresses();
    addConstructor(key);
  }

private:
  // A wrapped libc function called through a pointer (mawk's `printer = fprintf`, a
  // table of handlers) reaches its wrapper too: every use but a direct call's callee
  // (those instrumentCall redirects) becomes the wrapper, which has the same type, so the
  // output and memory effects of such calls are logged as well.
  void wrapTakenAddresses() {
    std::vector<llvm::Function *> wrapped;
    for (llvm::Function &fn : m_)
      if (fn.isDeclaration() && isWrappedLibcFunction(fn.getName()))
        wrapped.push_back(&fn);
    for (llvm::Function *fn : wrapped) {
      auto direct = [](llvm::Use &u) {
        auto *call = llvm::dyn_cast<llvm::CallBase>(u.getUser());
        return call && call->isCallee(&u);
      };
      if (std::all_of(fn->use_begin(), fn->use_end(), direct))
        continue;
      std::string name = ("__rl_wrap_" + fn->getName()).str();
      llvm::FunctionCallee w = m_.getOrInsertFunction(name, fn->getFunctionType());
      fn->replaceUsesWithIf(w.getCallee(), [&](llvm::Use &u) { return !direct(u); });
    }
  }

  llvm::FunctionCallee hook(const char *name, llvm::ArrayRef<llvm::Type *> params) {
    return m_.getOrInsertFunction(name, llvm::FunctionType::get(void_, params, false));
  }

  llvm::Value *id(const llvm::Instruction *inst) {
    return llvm::ConstantInt::get(i32_, index_.idOf(inst));
  }

  // A value of at most 8 bytes as the i64 holding its bits; nullptr if it is wider.
  llvm::Value *asI64(llvm::IRBuilder<> &b, llvm::Value *v) {
    llvm::Type *t = v->getType();
    if (t->isPointerTy())
      return b.CreatePtrToInt(v, i64_);
    if (t->isIntegerTy()) {
      if (t->getIntegerBitWidth() > 64)
        return nullptr;
      return b.CreateZExt(v, i64_);
    }
    if (t->isFloatingPointTy() || t->isVectorTy()) {
      if (t->isX86_FP80Ty() || t->isFP128Ty())
        return nullptr;
      llvm::TypeSize bits = dl_.getTypeSizeInBits(t);
      if (bits.isScalable() || bits.getFixedValue() > 64 || bits.getFixedValue() % 8 != 0)
        return nullptr;
      if (t->isVectorTy() && llvm::cast<llvm::VectorType>(t)->getElementType()->isPointerTy())
        return nullptr;
      llvm::Value *asInt = b.CreateBitCast(
          v, llvm::IntegerType::get(ctx_, static_cast<unsigned>(bits.getFixedValue())));
      return b.CreateZExt(asInt, i64_);
    }
    return nullptr;
  }

  llvm::Value *sizeOf(llvm::Type *t) {
    return llvm::ConstantInt::get(i64_, dl_.getTypeStoreSize(t).getFixedValue());
  }

  void instrumentFunction(llvm::Function &fn) {
    std::vector<llvm::Instruction *> insts;
    // Decided on the original function: the calls inserted below make every alloca
    // escape.
    modelled_.clear();
    for (llvm::BasicBlock &bb : fn)
      for (llvm::Instruction &inst : bb) {
        insts.push_back(&inst);
        if (isReplayModelledLocal(&inst))
          modelled_.insert(&inst);
      }

    std::vector<const llvm::AllocaInst *> anchored = anchoredLocals(fn);
    silent_ = silentBranches(fn, anchored);
    anchored_.clear();
    anchored_.insert(anchored.begin(), anchored.end());
    anchor_ = anchored.empty() ? nullptr : const_cast<llvm::AllocaInst *>(anchored.front());

    // Entry hooks go after the entry block's leading allocas (the frame exists there),
    // and so do those allocas' own hooks, in order after them.
    leadingAllocas_.clear();
    llvm::Instruction *body = &*fn.getEntryBlock().begin();
    for (; llvm::isa<llvm::AllocaInst>(body); body = body->getNextNode())
      leadingAllocas_.insert(body);
    afterLeadingAllocas_ = body;

    uint32_t fnIndex = index_.indexOf(&fn);
    llvm::Value *fnId = llvm::ConstantInt::get(i32_, fnIndex);
    llvm::IRBuilder<> entry(body);
    if (anchored.empty()) {
      entry.CreateCall(enter_, {fnId});
    } else {
      // ENTER_FRAME logs the first anchored local's address; the first entry of the
      // function in a trace also logs the others' distances from it (LAYOUT).
      auto *anchor = const_cast<llvm::AllocaInst *>(anchored.front());
      llvm::Value *need = entry.CreateCall(enterFrame_, {fnId, anchor});
      llvm::Instruction *then = llvm::SplitBlockAndInsertIfThen(
          entry.CreateICmpNE(need, llvm::ConstantInt::get(i32_, 0)), body->getIterator(), false);
      llvm::IRBuilder<> lb(then);
      llvm::SmallVector<llvm::Value *, 8> args = {fnId,
                                                  llvm::ConstantInt::get(i32_, anchored.size())};
      llvm::Value *base = lb.CreatePtrToInt(anchor, i64_);
      for (const llvm::AllocaInst *al : anchored)
        args.push_back(
            lb.CreateSub(lb.CreatePtrToInt(const_cast<llvm::AllocaInst *>(al), i64_), base));
      lb.CreateCall(layout_, args);
      entry.SetInsertPoint(body);
    }
    // Arguments are logged where replay cannot know them (logsArguments).
    bool isMain = fn.getName() == "main";
    if (logsArguments(fn))
      for (llvm::Argument &a : fn.args()) {
        llvm::Value *bits = asI64(entry, &a);
        entry.CreateCall(arg_, {bits ? bits : llvm::ConstantInt::get(i64_, 0)});
      }
    if (isMain && fn.arg_size() >= 2 && fn.getArg(1)->getType()->isPointerTy())
      entry.CreateCall(main_, {entry.CreateZExtOrTrunc(fn.getArg(0), i32_), fn.getArg(1)});

    for (llvm::Instruction *inst : insts)
      instrumentInstruction(*inst, fnIndex, isMain);
  }

  void instrumentInstruction(llvm::Instruction &inst, uint32_t fnIndex, bool isMain) {
    if (auto *ld = llvm::dyn_cast<llvm::LoadInst>(&inst)) {
      if (modelled_.contains(ld->getPointerOperand()))
        return;
      llvm::IRBuilder<> b(ld->getNextNode());
      if (llvm::Value *bits = asI64(b, ld))
        b.CreateCall(load_, {ld->getPointerOperand(), bits});
      else
        b.CreateCall(loadWide_, {ld->getPointerOperand(), sizeOf(ld->getType())});
    } else if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
      if (modelled_.contains(st->getPointerOperand()))
        return;
      llvm::IRBuilder<> b(st);
      b.CreateCall(store_, {st->getPointerOperand()});
    } else if (auto *al = llvm::dyn_cast<llvm::AllocaInst>(&inst)) {
      if (anchored_.contains(al))
        return; // placed by replay from ENTER_FRAME
      llvm::IRBuilder<> b(leadingAllocas_.contains(al) ? afterLeadingAllocas_ : al->getNextNode());
      llvm::Value *size = llvm::ConstantInt::get(
          i64_, dl_.getTypeAllocSize(al->getAllocatedType()).getFixedValue());
      if (al->isArrayAllocation())
        size = b.CreateMul(size, b.CreateZExtOrTrunc(al->getArraySize(), i64_));
      b.CreateCall(modelled_.contains(al) ? allocaLocal_ : alloca_, {al, size});
    } else if (auto *br = llvm::dyn_cast<llvm::BranchInst>(&inst)) {
      if (!br->isConditional() || silent_.contains(br))
        return;
      llvm::IRBuilder<> b(br);
      b.CreateCall(br_, {b.CreateZExt(br->getCondition(), i8_)});
    } else if (auto *sw = llvm::dyn_cast<llvm::SwitchInst>(&inst)) {
      llvm::IRBuilder<> b(sw);
      b.CreateCall(switch_, {b.CreateZExtOrTrunc(sw->getCondition(), i64_)});
    } else if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(&inst)) {
      llvm::IRBuilder<> b(ret);
      if (isMain) {
        llvm::Value *rv = ret->getReturnValue();
        llvm::Value *status = rv && rv->getType()->isIntegerTy() ? b.CreateZExtOrTrunc(rv, i32_)
                                                                 : llvm::ConstantInt::get(i32_, 0);
        b.CreateCall(mainReturn_, {status});
      }
      b.CreateCall(ret_, {llvm::ConstantInt::get(i32_, fnIndex)});
    } else if (auto *call = llvm::dyn_cast<llvm::CallInst>(&inst)) {
      instrumentCall(*call);
    } else if (auto *ib = llvm::dyn_cast<llvm::IndirectBrInst>(&inst)) {
      // Computed goto: the index of the destination taken, as a switch logs its value
      // (replay cannot map the native code address to a block).
      llvm::IRBuilder<> b(ib);
      llvm::Value *idx = llvm::ConstantInt::get(i64_, ib->getNumDestinations());
      for (unsigned d = ib->getNumDestinations(); d-- > 0;) {
        llvm::Value *target = llvm::BlockAddress::get(ib->getFunction(), ib->getDestination(d));
        idx = b.CreateSelect(b.CreateICmpEQ(ib->getAddress(), target),
                             llvm::ConstantInt::get(i64_, d), idx);
      }
      b.CreateCall(switch_, {idx});
    } else if (llvm::isa<llvm::AtomicRMWInst>(&inst) || llvm::isa<llvm::AtomicCmpXchgInst>(&inst)) {
      // Read-modify-write: the write is logged before (like a store), the old value
      // after (like a load).
      llvm::Value *ptr = llvm::isa<llvm::AtomicRMWInst>(&inst)
                             ? llvm::cast<llvm::AtomicRMWInst>(&inst)->getPointerOperand()
                             : llvm::cast<llvm::AtomicCmpXchgInst>(&inst)->getPointerOperand();
      llvm::IRBuilder<> before(&inst);
      before.CreateCall(store_, {ptr});
      llvm::IRBuilder<> after(inst.getNextNode());
      llvm::Value *old = llvm::isa<llvm::AtomicRMWInst>(&inst) ? static_cast<llvm::Value *>(&inst)
                                                               : after.CreateExtractValue(&inst, 0);
      if (llvm::Value *bits = asI64(after, old))
        after.CreateCall(load_, {ptr, bits});
      else
        after.CreateCall(loadWide_, {ptr, sizeOf(old->getType())});
    }
  }

  void instrumentCall(llvm::CallInst &call) {
    llvm::Function *callee = call.getCalledFunction();
    if (callee && callee->isIntrinsic()) {
      instrumentIntrinsic(call, callee->getIntrinsicID());
      return;
    }
    if (callee && !callee->isDeclaration())
      return; // instrumented code logs itself
    if (callee && isWrappedLibcFunction(callee->getName())) {
      std::string wrapper = ("__rl_wrap_" + callee->getName()).str();
      llvm::FunctionCallee w = m_.getOrInsertFunction(wrapper, callee->getFunctionType());
      call.setCalledFunction(w);
    }
    // Every call that is not a direct call to instrumented code ends with EXT_RET, so
    // replay knows where the callee's events (callbacks, memory effects) stop.
    llvm::IRBuilder<> b(call.getNextNode());
    // A setjmp returns (again, after a longjmp) in one frame of possibly several of its
    // function: RESUME names it by its anchor.
    bool setjmp = callee && isSetjmpLike(callee->getName()) && anchor_;
    if (call.getType()->isVoidTy()) {
      b.CreateCall(extRet_, {id(&call), llvm::ConstantInt::get(i64_, 0)});
    } else if (llvm::Value *bits = asI64(b, &call)) {
      b.CreateCall(extRet_, {id(&call), bits});
    } else {
      llvm::IRBuilder<> eb(&*call.getFunction()->getEntryBlock().getFirstInsertionPt());
      llvm::AllocaInst *slot = eb.CreateAlloca(call.getType());
      b.CreateStore(&call, slot);
      b.CreateCall(extRetWide_, {id(&call), slot, sizeOf(call.getType())});
    }
    if (setjmp)
      b.CreateCall(resume_, {anchor_});
  }

  void instrumentIntrinsic(llvm::CallInst &call, llvm::Intrinsic::ID iid) {
    if (auto *mt = llvm::dyn_cast<llvm::MemTransferInst>(&call)) {
      llvm::IRBuilder<> b(call.getNextNode());
      b.CreateCall(copy_, {mt->getRawDest(), mt->getRawSource(),
                           b.CreateZExtOrTrunc(mt->getLength(), i64_)});
    } else if (auto *ms = llvm::dyn_cast<llvm::MemSetInst>(&call)) {
      llvm::IRBuilder<> b(call.getNextNode());
      b.CreateCall(set_,
                   {ms->getRawDest(), ms->getValue(), b.CreateZExtOrTrunc(ms->getLength(), i64_)});
    }
    (void)iid;
  }

  // A constructor that runs before any user code: opens the trace and logs where every
  // function and global of the module lives.
  void addConstructor(const std::string &key) {
    std::vector<llvm::Constant *> fnPtrs, fnIdx, gvPtrs, gvSizes, gvIdx;
    for (size_t i = 0; i < index_.functionCount(); ++i) {
      auto *fn = const_cast<llvm::Function *>(index_.function(static_cast<uint32_t>(i)));
      if (fn->isIntrinsic() || fn->getName().starts_with("__rl_"))
        continue;
      if (fn->isDeclaration() && !fn->hasAddressTaken())
        continue;
      fnPtrs.push_back(fn);
      fnIdx.push_back(llvm::ConstantInt::get(i32_, i));
    }
    for (size_t i = 0; i < index_.globalCount(); ++i) {
      auto *gv = const_cast<llvm::GlobalVariable *>(index_.global(static_cast<uint32_t>(i)));
      if (gv->getName().starts_with("llvm.") || gv->isThreadLocal() ||
          !gv->getValueType()->isSized())
        continue;
      gvPtrs.push_back(gv);
      gvSizes.push_back(
          llvm::ConstantInt::get(i64_, dl_.getTypeAllocSize(gv->getValueType()).getFixedValue()));
      gvIdx.push_back(llvm::ConstantInt::get(i32_, i));
    }
    auto table = [&](llvm::Type *elem, const std::vector<llvm::Constant *> &items,
                     const char *name) -> llvm::Constant * {
      auto *ty = llvm::ArrayType::get(elem, items.size());
      return new llvm::GlobalVariable(m_, ty, true, llvm::GlobalValue::PrivateLinkage,
                                      llvm::ConstantArray::get(ty, items), name);
    };
    llvm::Constant *fnTable = table(ptr_, fnPtrs, "__rl_fn_table");
    llvm::Constant *fnIdxTable = table(i32_, fnIdx, "__rl_fn_index");
    llvm::Constant *gvTable = table(ptr_, gvPtrs, "__rl_gv_table");
    llvm::Constant *gvSizeTable = table(i64_, gvSizes, "__rl_gv_size");
    llvm::Constant *gvIdxTable = table(i32_, gvIdx, "__rl_gv_index");

    auto *ctorTy = llvm::FunctionType::get(void_, false);
    auto *ctor =
        llvm::Function::Create(ctorTy, llvm::GlobalValue::InternalLinkage, "__rl_module_ctor", m_);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx_, "entry", ctor));
    llvm::FunctionCallee init = m_.getOrInsertFunction(
        "__rl_init",
        llvm::FunctionType::get(void_, {ptr_, ptr_, ptr_, i32_, ptr_, ptr_, ptr_, i32_}, false));
    b.CreateCall(init, {b.CreateGlobalStringPtr(key, "__rl_module_key"), fnTable, fnIdxTable,
                        llvm::ConstantInt::get(i32_, fnPtrs.size()), gvTable, gvSizeTable,
                        gvIdxTable, llvm::ConstantInt::get(i32_, gvPtrs.size())});
    b.CreateRetVoid();
    llvm::appendToGlobalCtors(m_, ctor, 0);
  }

  llvm::Module &m_;
  const ModuleIndex &index_;
  llvm::DenseSet<const llvm::Value *> modelled_; // locals replay models, in the current function
  llvm::DenseSet<const llvm::Value *> anchored_; // of those, the ones ENTER_FRAME places
  llvm::DenseSet<const llvm::Value *> leadingAllocas_; // the entry block's first allocas
  llvm::DenseSet<const llvm::BranchInst *> silent_;    // branches that log no BR
  llvm::Instruction *afterLeadingAllocas_ = nullptr;
  llvm::AllocaInst *anchor_ = nullptr; // the first anchored local, or null
  const llvm::DataLayout &dl_;
  llvm::LLVMContext &ctx_;
  llvm::Type *i8_, *i32_, *i64_, *void_;
  llvm::PointerType *ptr_;
  llvm::FunctionCallee br_, switch_, enter_, enterFrame_, layout_, resume_, arg_, ret_, load_,
      loadWide_, store_, alloca_, allocaLocal_, extRet_, extRetWide_, main_, mainReturn_, copy_,
      set_;
};

} // namespace

void instrumentModule(llvm::Module &module, const std::string &moduleKey) {
  ModuleIndex index(module);
  Instrumenter(module, index).run(moduleKey);
}

} // namespace rootline
