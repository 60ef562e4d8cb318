// The types of `void *` payloads per tag value (void_payloads.h). Works on clang's -O0
// IR: a member is read as `load (getelementptr %struct.S, p, 0, k)`, a parameter as a
// load of its `.addr` alloca, and locals carry debug declarations with their C types.
#include "void_payloads.h"

#include "support/debug_types.h"

#include <llvm/ADT/STLExtras.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugProgramInstruction.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>

namespace rootline {

namespace {

namespace dw = llvm::dwarf;

// A pointer type to something (not `void *`): what a payload can be built as.
const llvm::DIType *typedPointer(const llvm::DIType *t) {
  auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(strippedType(t));
  if (!d || d->getTag() != dw::DW_TAG_pointer_type || !strippedType(d->getBaseType()))
    return nullptr;
  return t;
}

// `struct.shape.12` -> `shape`: the C name of an IR struct type (linking numbers copies).
std::string structName(const llvm::StructType *st) {
  if (!st->hasName())
    return "";
  std::string n = st->getName().str();
  for (const char *prefix : {"struct.", "union."})
    if (n.rfind(prefix, 0) == 0)
      n = n.substr(std::string(prefix).size());
  size_t dot = n.rfind('.');
  if (dot != std::string::npos && dot + 1 < n.size() &&
      n.find_first_not_of("0123456789", dot + 1) == std::string::npos)
    n = n.substr(0, dot);
  return n;
}

const llvm::DILocalVariable *declaredVariable(const llvm::Value *v) {
  auto *mut = const_cast<llvm::Value *>(v);
  for (auto *d : llvm::findDbgDeclares(mut))
    return d->getVariable();
  for (auto *r : llvm::findDVRDeclares(mut))
    return r->getVariable();
  return nullptr;
}

// Pointer types the program's debug information has, by what they point to: an IR type
// a payload is indexed or read as is mapped back to a C pointer type through them. A
// pointer type no variable has (`(char *)p` only in a cast) is made in the module's
// context, which leaves the module itself unchanged.
class PointerTypes {
public:
  explicit PointerTypes(const llvm::Module &m)
      : context_(m.getContext()), layout_(m.getDataLayout()) {
    llvm::DebugInfoFinder finder;
    finder.processModule(m);
    for (const llvm::DIType *t : finder.types()) {
      if (auto *c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t);
          c && !c->getName().empty() &&
          (c->getTag() == dw::DW_TAG_structure_type || c->getTag() == dw::DW_TAG_union_type))
        composites_.try_emplace(c->getName().str(), c);
      if (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t);
          d && d->getTag() == dw::DW_TAG_typedef)
        if (auto *c = llvm::dyn_cast_or_null<llvm::DICompositeType>(strippedType(d->getBaseType()));
            c && c->getName().empty() && c->getTag() == dw::DW_TAG_structure_type)
          composites_.try_emplace(d->getName().str(), c);
      auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t);
      if (!d || d->getTag() != dw::DW_TAG_pointer_type)
        continue;
      if (std::string name = structNameOf(d->getBaseType()); !name.empty())
        byName_.try_emplace(name, d);
      if (auto *b = llvm::dyn_cast_or_null<llvm::DIBasicType>(strippedType(d->getBaseType()))) {
        bool isFloat = b->getEncoding() == dw::DW_ATE_float;
        auto key = std::make_pair(b->getSizeInBits(), isFloat);
        // A plain `char` or `int` rather than `unsigned char`: the common reading.
        bool plain = b->getEncoding() == dw::DW_ATE_signed ||
                     b->getEncoding() == dw::DW_ATE_signed_char || isFloat;
        auto [it, fresh] = byScalar_.try_emplace(key, d);
        if (!fresh && plain && !plainScalar_.count(key))
          it->second = d;
        if (plain)
          plainScalar_.insert(key);
      }
    }
  }

  // The linked GEP's struct as its unit named it.
  void nameAt(const llvm::GetElementPtrInst *gep, std::string name) {
    unitNames_[gep] = std::move(name);
  }
  std::string nameOf(const llvm::GetElementPtrInst *gep) const {
    auto it = unitNames_.find(gep);
    return it == unitNames_.end() ? "" : it->second;
  }

  // A C pointer type to `t`; `known` is the struct's name when its unit says it.
  const llvm::DIType *to(const llvm::Type *t, const std::string &known = "") {
    if (auto *st = llvm::dyn_cast<llvm::StructType>(t)) {
      std::string name = composites_.count(known) ? known : structFor(st);
      if (name.empty())
        return nullptr;
      if (auto it = byName_.find(name); it != byName_.end())
        return it->second;
      auto c = composites_.find(name);
      return c == composites_.end() ? nullptr
                                    : byName_.try_emplace(name, pointerTo(c->second)).first->second;
    }
    std::pair<uint64_t, bool> key;
    if (t->isIntegerTy())
      key = {t->getIntegerBitWidth(), false};
    else if (t->isDoubleTy())
      key = {64, true};
    else if (t->isFloatTy())
      key = {32, true};
    else
      return nullptr;
    if (auto it = byScalar_.find(key); it != byScalar_.end())
      return it->second;
    const char *name = key.second        ? (key.first == 32 ? "float" : "double")
                       : key.first == 8  ? "char"
                       : key.first == 16 ? "short"
                       : key.first == 32 ? "int"
                       : key.first == 64 ? "long"
                                         : nullptr;
    if (!name)
      return nullptr;
    unsigned encoding = key.second       ? dw::DW_ATE_float
                        : key.first == 8 ? dw::DW_ATE_signed_char
                                         : dw::DW_ATE_signed;
    auto *basic = llvm::DIBasicType::get(context_, dw::DW_TAG_base_type, name, key.first, 0,
                                         encoding, llvm::DINode::FlagZero);
    return byScalar_.try_emplace(key, pointerTo(basic)).first->second;
  }

private:
  // The one C struct the IR struct type can be. The linker merges struct types of the
  // same layout (`struct circle { int r; }` may become `%struct.counter`), so the IR
  // name is not trusted: the struct is the only one of the program with that layout.
  std::string structFor(const llvm::StructType *st) const {
    if (st->isOpaque())
      return "";
    const llvm::StructLayout *sl = layout_.getStructLayout(const_cast<llvm::StructType *>(st));
    std::set<uint64_t> offsets;
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      offsets.insert(sl->getElementOffsetInBits(i));
    std::string found;
    for (const auto &[name, c] : composites_) {
      if (c->getSizeInBits() != sl->getSizeInBits())
        continue;
      std::set<uint64_t> members;
      for (const llvm::DINode *n : c->getElements())
        if (auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
            m && m->getTag() == dw::DW_TAG_member && !m->isBitField())
          members.insert(m->getOffsetInBits());
      if (!std::includes(offsets.begin(), offsets.end(), members.begin(), members.end()))
        continue;
      if (!found.empty())
        return ""; // two structs of that layout: the cast is not known
      found = name;
    }
    return found;
  }

  const llvm::DIType *pointerTo(const llvm::DIType *base) {
    return llvm::DIDerivedType::get(context_, dw::DW_TAG_pointer_type, "", nullptr, 0, nullptr,
                                    const_cast<llvm::DIType *>(base), 64, 0, 0, std::nullopt,
                                    std::nullopt, llvm::DINode::FlagZero);
  }

  llvm::LLVMContext &context_;
  const llvm::DataLayout &layout_;
  std::map<std::string, const llvm::DICompositeType *> composites_;
  std::map<const llvm::GetElementPtrInst *, std::string> unitNames_;
  std::map<std::string, const llvm::DIType *> byName_;
  std::map<std::pair<uint64_t, bool>, const llvm::DIType *> byScalar_;
  std::set<std::pair<uint64_t, bool>> plainScalar_;
};

// Where a loaded value comes from: a struct member or a parameter of the explored
// function.
struct Slot {
  bool member = false;
  std::string owner;  // the struct's name, or "" for a parameter
  uint64_t index = 0; // member offset in bits, or argument number
  bool operator==(const Slot &o) const {
    return member == o.member && owner == o.owner && index == o.index;
  }
};

class Finder {
public:
  Finder(const llvm::Module &m, const llvm::Function &function)
      : linked_(m), layout_(m.getDataLayout()), function_(function), pointers_(m) {}

  // The linked functions' GEPs over struct types, named as their own unit named them:
  // a function's instructions are the same, in the same order, before and after linking.
  void nameStructsFrom(const llvm::Module &unit) {
    for (const llvm::Function &u : unit) {
      const llvm::Function *f = u.isDeclaration() ? nullptr : linked_.getFunction(u.getName());
      if (!f || f->isDeclaration() || f->getInstructionCount() != u.getInstructionCount())
        continue;
      for (auto [a, b] : llvm::zip(llvm::instructions(*f), llvm::instructions(u))) {
        auto *ga = llvm::dyn_cast<llvm::GetElementPtrInst>(&a);
        auto *gb = llvm::dyn_cast<llvm::GetElementPtrInst>(&b);
        if (!ga || !gb)
          continue;
        if (auto *st = llvm::dyn_cast<llvm::StructType>(gb->getSourceElementType()))
          pointers_.nameAt(ga, structName(st));
      }
    }
  }

  void scan(const llvm::Function &f, VoidPayloads &out) {
    std::unique_ptr<llvm::DominatorTree> dt;
    for (const llvm::Instruction &inst : llvm::instructions(f)) {
      auto *load = llvm::dyn_cast<llvm::LoadInst>(&inst);
      if (!load || !load->getType()->isPointerTy())
        continue;
      std::optional<Slot> slot = slotOf(load->getPointerOperand(), f);
      if (!slot)
        continue;
      for (const llvm::Use &use : load->uses()) {
        const llvm::DIType *type = typeAt(use);
        if (!type)
          continue;
        if (!dt)
          dt = std::make_unique<llvm::DominatorTree>(const_cast<llvm::Function &>(f));
        auto *at = llvm::cast<llvm::Instruction>(use.getUser());
        record(*slot, type, guardOf(at->getParent(), *dt, *slot, f), siteOf(at), out);
      }
    }
  }

private:
  struct Guard {
    Slot tag;
    std::vector<int64_t> values;
    bool otherwise = false;
  };

  // The C type of the object `ptr` points to, from debug information: a declared local
  // or parameter, a global, a member of such an object, an element, or what a pointer
  // loaded from one of them points to.
  const llvm::DIType *objectType(const llvm::Value *ptr, unsigned depth = 0) const {
    if (depth > 8)
      return nullptr;
    if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(ptr)) {
      const llvm::DILocalVariable *v = declaredVariable(alloca);
      return v ? v->getType() : nullptr;
    }
    if (auto *g = llvm::dyn_cast<llvm::GlobalVariable>(ptr)) {
      llvm::SmallVector<llvm::DIGlobalVariableExpression *, 1> infos;
      g->getDebugInfo(infos);
      return infos.empty() ? nullptr : infos.front()->getVariable()->getType();
    }
    if (auto *load = llvm::dyn_cast<llvm::LoadInst>(ptr)) {
      auto *p = llvm::dyn_cast_or_null<llvm::DIDerivedType>(
          strippedType(objectType(load->getPointerOperand(), depth + 1)));
      return p && p->getTag() == dw::DW_TAG_pointer_type ? p->getBaseType() : nullptr;
    }
    auto *gep = llvm::dyn_cast<llvm::GEPOperator>(ptr);
    if (!gep)
      return nullptr;
    const llvm::DIType *base = strippedType(objectType(gep->getPointerOperand(), depth + 1));
    if (gep->getNumIndices() == 1) // p + i: an element like *p
      return base;
    auto *c = llvm::dyn_cast_or_null<llvm::DICompositeType>(base);
    auto *st = llvm::dyn_cast<llvm::StructType>(gep->getSourceElementType());
    if (!c || gep->getNumIndices() != 2)
      return nullptr;
    if (c->getTag() == dw::DW_TAG_array_type)
      return c->getBaseType();
    auto *field = llvm::dyn_cast<llvm::ConstantInt>(gep->getOperand(2));
    if (!st || st->isOpaque() || !field)
      return nullptr;
    uint64_t offset = layout_.getStructLayout(st)->getElementOffsetInBits(field->getZExtValue());
    for (const llvm::DINode *n : c->getElements())
      if (auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
          m && m->getTag() == dw::DW_TAG_member && m->getOffsetInBits() == offset)
        return m->getBaseType();
    return nullptr;
  }

  // The C name of the struct a member access reads from (`shape`, or the typedef of an
  // anonymous one), from the object's debug type; the IR name only when there is none.
  std::string ownerOf(const llvm::GEPOperator *gep, const llvm::StructType *st) const {
    const llvm::DIType *t = objectType(gep->getPointerOperand());
    return t ? structNameOf(t) : structName(st);
  }

  std::optional<Slot> slotOf(const llvm::Value *ptr, const llvm::Function &f) const {
    if (auto *gep = llvm::dyn_cast<llvm::GEPOperator>(ptr)) {
      auto *st = llvm::dyn_cast<llvm::StructType>(gep->getSourceElementType());
      if (!st || st->isOpaque() || gep->getNumIndices() != 2)
        return std::nullopt;
      auto *first = llvm::dyn_cast<llvm::ConstantInt>(gep->getOperand(1));
      auto *field = llvm::dyn_cast<llvm::ConstantInt>(gep->getOperand(2));
      if (!first || !first->isZero() || !field)
        return std::nullopt;
      std::string name = ownerOf(gep, st);
      if (name.empty())
        return std::nullopt;
      uint64_t offset = layout_.getStructLayout(st)->getElementOffsetInBits(field->getZExtValue());
      return Slot{true, name, offset};
    }
    if (&f != &function_)
      return std::nullopt;
    if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(ptr))
      if (const llvm::DILocalVariable *v = declaredVariable(alloca); v && v->getArg() > 0)
        return Slot{false, "", v->getArg()};
    return std::nullopt;
  }

  // The slot an integer value was read from: directly, through an integer cast, or
  // through a local it was copied into once (`int k = s->kind; switch (k)`).
  std::optional<Slot> tagSlotOf(const llvm::Value *v, const llvm::Function &f) const {
    while (auto *cast = llvm::dyn_cast<llvm::CastInst>(v))
      v = cast->getOperand(0);
    auto *load = llvm::dyn_cast<llvm::LoadInst>(v);
    if (!load || !load->getType()->isIntegerTy())
      return std::nullopt;
    if (std::optional<Slot> s = slotOf(load->getPointerOperand(), f))
      return s;
    auto *local = llvm::dyn_cast<llvm::AllocaInst>(load->getPointerOperand());
    if (!local)
      return std::nullopt;
    const llvm::StoreInst *only = nullptr;
    for (const llvm::User *u : local->users())
      if (auto *st = llvm::dyn_cast<llvm::StoreInst>(u)) {
        if (only || st->getPointerOperand() != local)
          return std::nullopt;
        only = st;
      }
    if (!only)
      return std::nullopt;
    const llvm::Value *stored = only->getValueOperand();
    while (auto *cast = llvm::dyn_cast<llvm::CastInst>(stored))
      stored = cast->getOperand(0);
    if (auto *l = llvm::dyn_cast<llvm::LoadInst>(stored))
      return slotOf(l->getPointerOperand(), f);
    return std::nullopt;
  }

  // The C pointer type a use of the payload treats it as, or null.
  const llvm::DIType *typeAt(const llvm::Use &use) {
    const llvm::User *user = use.getUser();
    if (auto *store = llvm::dyn_cast<llvm::StoreInst>(user)) {
      if (store->getValueOperand() != use.get())
        return nullptr;
      if (auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(store->getPointerOperand()))
        if (const llvm::DILocalVariable *v = declaredVariable(alloca))
          return typedPointer(v->getType());
      return nullptr;
    }
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(user)) {
      const llvm::Function *callee = call->getCalledFunction();
      if (!callee || !callee->getSubprogram() || !call->isArgOperand(&use))
        return nullptr;
      auto types = callee->getSubprogram()->getType()->getTypeArray();
      unsigned arg = call->getArgOperandNo(&use);
      return arg + 1 < types.size() ? typedPointer(types[arg + 1]) : nullptr;
    }
    if (auto *gep = llvm::dyn_cast<llvm::GetElementPtrInst>(user))
      return gep->getPointerOperand() == use.get()
                 ? pointers_.to(gep->getSourceElementType(), pointers_.nameOf(gep))
                 : nullptr;
    if (auto *load = llvm::dyn_cast<llvm::LoadInst>(user))
      return pointers_.to(load->getType());
    return nullptr;
  }

  // The nearest branch on a tag (another slot of the same owner) that only the path to
  // `bb` takes: which tag values lead there.
  std::optional<Guard> guardOf(const llvm::BasicBlock *bb, const llvm::DominatorTree &dt,
                               const Slot &payload, const llvm::Function &f) const {
    auto isTag = [&](const std::optional<Slot> &s) {
      return s && s->member == payload.member && s->owner == payload.owner && !(*s == payload);
    };
    // A successor every path to `bb` goes through, entered only from `a`.
    auto leads = [&](const llvm::BasicBlock *a, const llvm::BasicBlock *s) {
      return llvm::all_of(llvm::predecessors(s), [&](auto *p) { return p == a; }) &&
             dt.dominates(s, bb);
    };
    const llvm::DomTreeNode *node = dt.getNode(bb);
    for (; node && node->getIDom(); node = node->getIDom()) {
      const llvm::BasicBlock *a = node->getIDom()->getBlock();
      const llvm::Instruction *term = a->getTerminator();
      if (auto *br = llvm::dyn_cast<llvm::BranchInst>(term); br && br->isConditional()) {
        auto *cmp = llvm::dyn_cast<llvm::ICmpInst>(br->getCondition());
        if (!cmp || !cmp->isEquality() || br->getSuccessor(0) == br->getSuccessor(1))
          continue;
        auto *k = llvm::dyn_cast<llvm::ConstantInt>(cmp->getOperand(1));
        const llvm::Value *read = cmp->getOperand(0);
        if (!k) {
          k = llvm::dyn_cast<llvm::ConstantInt>(cmp->getOperand(0));
          read = cmp->getOperand(1);
        }
        std::optional<Slot> tag = k ? tagSlotOf(read, f) : std::nullopt;
        if (!isTag(tag))
          continue;
        bool trueSide = leads(a, br->getSuccessor(0));
        if (!trueSide && !leads(a, br->getSuccessor(1)))
          continue;
        bool equal = (cmp->getPredicate() == llvm::CmpInst::ICMP_EQ) == trueSide;
        return Guard{*tag, {k->getSExtValue()}, !equal};
      }
      if (auto *sw = llvm::dyn_cast<llvm::SwitchInst>(term)) {
        std::optional<Slot> tag = tagSlotOf(sw->getCondition(), f);
        if (!isTag(tag))
          continue;
        Guard g{*tag, {}, false};
        for (const auto &c : sw->cases())
          if (leads(a, c.getCaseSuccessor()))
            g.values.push_back(c.getCaseValue()->getSExtValue());
        if (!g.values.empty())
          return g;
        if (!leads(a, sw->getDefaultDest()))
          continue;
        for (const auto &c : sw->cases())
          g.values.push_back(c.getCaseValue()->getSExtValue());
        g.otherwise = true;
        return g;
      }
    }
    return std::nullopt;
  }

  static std::string siteOf(const llvm::Instruction *at) {
    const llvm::DebugLoc &loc = at->getDebugLoc();
    if (!loc)
      return "";
    return llvm::cast<llvm::DIScope>(loc.getScope())->getFilename().str() + ":" +
           std::to_string(loc.getLine());
  }

  static void record(const Slot &slot, const llvm::DIType *type, const std::optional<Guard> &guard,
                     const std::string &site, VoidPayloads &out) {
    VoidPayload &p = slot.member ? out.members[{slot.owner, slot.index}]
                                 : out.params[static_cast<unsigned>(slot.index)];
    PayloadCase c{{}, true, type, site};
    if (guard) {
      if (p.cases.empty() || !p.tagged) {
        p.tagged = true;
        p.tag = guard->tag.index;
      } else if (p.tag != guard->tag.index) {
        return; // another tag of the same struct: the first one found decides
      }
      c.tags = guard->values;
      c.otherwise = guard->otherwise;
    }
    for (const PayloadCase &known : p.cases)
      if (known.tags == c.tags && known.otherwise == c.otherwise)
        return; // the first use on that side decides its type
    p.cases.push_back(c);
  }

  const llvm::Module &linked_;
  const llvm::DataLayout &layout_;
  const llvm::Function &function_;
  PointerTypes pointers_;
};

} // namespace

VoidPayloads findVoidPayloads(const llvm::Module &module, const llvm::Function &function,
                              const std::vector<const llvm::Module *> &units) {
  VoidPayloads out;
  Finder finder(module, function);
  for (const llvm::Module *unit : units)
    finder.nameStructsFrom(*unit);
  for (const llvm::Function &f : module)
    if (!f.isDeclaration())
      finder.scan(f, out);
  return out;
}

} // namespace rootline
