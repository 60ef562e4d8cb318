// What a line execution did, in C terms for the reader: values as C prints them for
// their type, and the variable a store writes as the source names it.
#include "rootline/alignment.h"
#include "rootline/expr_text.h"

#include <llvm/IR/Constants.h>

#include <llvm/IR/GlobalVariable.h>

#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <cctype>
#include <cstdio>
#include <cstring>

namespace rootline {

namespace {

std::string numberText(const Val &v, const llvm::Type *type) {
  char buf[64];
  if (type->isIntegerTy()) {
    unsigned bits = type->getIntegerBitWidth();
    if (bits == 1)
      return v.lo & 1 ? "true" : "false";
    int64_t s = bits >= 64 ? static_cast<int64_t>(v.lo)
                           : static_cast<int64_t>(v.lo << (64 - bits)) >> (64 - bits);
    if (bits == 8 && s >= 32 && s < 127)
      std::snprintf(buf, sizeof buf, "'%c' (%lld)", static_cast<char>(s),
                    static_cast<long long>(s));
    else
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(s));
    return buf;
  }
  if (type->isFloatTy()) {
    float f;
    uint32_t bits = static_cast<uint32_t>(v.lo);
    std::memcpy(&f, &bits, sizeof f);
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(f));
    return buf;
  }
  if (type->isDoubleTy()) {
    double d;
    std::memcpy(&d, &v.lo, sizeof d);
    std::snprintf(buf, sizeof buf, "%g", d);
    return buf;
  }
  if (type->isX86_FP80Ty()) {
    unsigned char bytes[sizeof(long double)] = {};
    std::memcpy(bytes, &v.lo, 8);
    std::memcpy(bytes + 8, &v.hi, 2);
    long double d;
    std::memcpy(&d, bytes, sizeof d);
    std::snprintf(buf, sizeof buf, "%Lg", d);
    return buf;
  }
  if (type->isPointerTy())
    return "an address";
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v.lo));
  return buf;
}

std::string branchText(const LineEffect &e) {
  if (auto *sw = llvm::dyn_cast<llvm::SwitchInst>(e.inst)) {
    for (auto c : sw->cases())
      if (c.getSuccessorIndex() == e.value.lo)
        return "case " + std::to_string(c.getCaseValue()->getSExtValue());
    return "default";
  }
  return e.value.lo == 0 ? "true" : "false";
}

// A local variable's name from its debug declaration, when it has one.
std::string declaredName(const llvm::AllocaInst *alloca) {
  auto *v = const_cast<llvm::AllocaInst *>(alloca);
  for (auto *d : llvm::findDbgDeclares(v))
    return d->getVariable()->getName().str();
  for (auto *d : llvm::findDVRDeclares(v))
    return d->getVariable()->getName().str();
  return "";
}

// A struct member's name: clang names the address of `s.len` after the member (`%len`,
// made unique in a function as `%len1`, `%len2`).
std::string fieldName(const llvm::GetElementPtrInst *gep) {
  if (!gep->getSourceElementType()->isStructTy() || !gep->hasAllConstantIndices())
    return "";
  std::string name = gep->getName().str();
  while (name.size() > 1 && std::isdigit(static_cast<unsigned char>(name.back())))
    name.pop_back();
  return name;
}

// The variable an address points into; `index` (when given) is shown as the dynamic
// index nearest the variable, others as `[…]`.
std::string objectName(const llvm::Value *v, const int64_t *index, int depth = 0) {
  if (depth > 8)
    return "";
  v = v->stripPointerCasts();
  if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(v)) {
    std::string name = declaredName(alloca);
    if (name.empty()) {
      name = alloca->getName().str();
      if (name.size() > 5 && name.ends_with(".addr"))
        name.resize(name.size() - 5);
    }
    return name == "retval" ? "the return value" : name;
  }
  if (auto *gv = llvm::dyn_cast<llvm::GlobalVariable>(v))
    return gv->getName().str();
  if (auto *load = llvm::dyn_cast<llvm::LoadInst>(v)) {
    std::string p = objectName(load->getPointerOperand(), nullptr, depth + 1);
    return p.empty() ? "" : "*" + p;
  }
  auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(v);
  if (!gep)
    return "";
  const llvm::Value *inner = gep->getPointerOperand()->stripPointerCasts();
  bool innerDynamic = false; // a dynamic index nearer the variable takes `index`
  for (const llvm::Value *q = inner; auto *g = llvm::dyn_cast<llvm::GetElementPtrInst>(q);
       q = g->getPointerOperand()->stripPointerCasts())
    innerDynamic = innerDynamic || !g->hasAllConstantIndices();
  std::string base = objectName(inner, index, depth + 1);
  if (base.empty())
    return "";
  if (!gep->hasAllConstantIndices()) {
    std::string shown = index && !innerDynamic ? std::to_string(*index) : "…";
    if (base[0] == '*' && base.find_first_of(".[-") == std::string::npos)
      return base.substr(1) + "[" + shown + "]"; // p[i]
    return base + "[" + shown + "]";
  }
  std::string field = fieldName(gep);
  if (field.empty())
    return base;
  if (base[0] == '*' && base.find_first_of(".[-") == std::string::npos)
    return base.substr(1) + "->" + field;
  return base + "." + field;
}

} // namespace

std::optional<std::string> constantStringOf(const llvm::Value *operand) {
  auto *gv = llvm::dyn_cast<llvm::GlobalVariable>(operand->stripPointerCasts());
  if (!gv || !gv->isConstant() || !gv->hasInitializer())
    return std::nullopt;
  auto *data = llvm::dyn_cast<llvm::ConstantDataSequential>(gv->getInitializer());
  if (!data || !data->isCString())
    return std::nullopt;
  return data->getAsCString().str();
}

std::string effectValueText(const LineEffect &e) {
  if (!e.inst)
    return "";
  if (e.kind == LineEffect::Branch)
    return branchText(e);
  if (e.pointer)
    return "an address";
  if (e.constantString)
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(e.inst); call && e.ordinal < call->arg_size())
      if (auto text = constantStringOf(call->getArgOperand(e.ordinal)))
        return cStringLiteral(*text);
  const llvm::Type *type = nullptr;
  if (auto *store = llvm::dyn_cast<llvm::StoreInst>(e.inst))
    type = store->getValueOperand()->getType();
  else if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(e.inst))
    type = ret->getReturnValue() ? ret->getReturnValue()->getType() : nullptr;
  else if (auto *call = llvm::dyn_cast<llvm::CallBase>(e.inst))
    type = e.ordinal < call->arg_size() ? call->getArgOperand(e.ordinal)->getType() : nullptr;
  return type ? numberText(e.value, type) : "";
}

std::string inputValueText(const LineInput &in) {
  if (!in.load)
    return "";
  return in.pointer ? "an address" : numberText(in.value, in.load->getType());
}

std::string valueName(const llvm::Value *v) {
  if (auto *load = llvm::dyn_cast_or_null<llvm::LoadInst>(v))
    return objectName(load->getPointerOperand(), nullptr);
  auto *literal = v ? llvm::dyn_cast<llvm::GlobalVariable>(v->stripPointerCasts()) : nullptr;
  if (v && v->getType()->isPointerTy() && !(literal && literal->isConstant()))
    return objectName(v, nullptr); // a buffer printed with %s
  return "";
}

std::string addressName(const llvm::Value *address) { return objectName(address, nullptr); }

std::string storeTargetName(const LineEffect &store) {
  auto *s = llvm::dyn_cast_or_null<llvm::StoreInst>(store.inst);
  if (!s)
    return "";
  return objectName(s->getPointerOperand(), store.indexed ? &store.shownIndex : nullptr);
}

std::string sourceFunctionName(llvm::StringRef irName) {
  llvm::StringRef name = irName;
  name.consume_front("__rl_wrap_"); // the tracer's wrappers of libc's input functions
  for (llvm::StringRef redirect : {"__isoc99_", "__isoc23_", "__posix_", "__xpg_"})
    if (name.consume_front(redirect))
      break;
  // _FORTIFY_SOURCE's checked variants: __printf_chk, __memcpy_chk.
  if (name.size() > 6 && name.starts_with("__") && name.ends_with("_chk"))
    name = name.drop_front(2).drop_back(4);
  return name.str();
}

std::string calleeText(const llvm::Instruction *inst) {
  auto *call = llvm::dyn_cast_or_null<llvm::CallBase>(inst);
  if (!call)
    return "a function";
  if (const llvm::Function *f = call->getCalledFunction())
    return sourceFunctionName(f->getName());
  const llvm::Value *callee = call->getCalledOperand()->stripPointerCasts();
  if (auto *load = llvm::dyn_cast<llvm::LoadInst>(callee))
    if (std::string var = addressName(load->getPointerOperand()); !var.empty())
      return "the function in `" + var + "`";
  return "a function through a pointer";
}

} // namespace rootline
