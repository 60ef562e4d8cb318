#include "symbolic/source_names.h"

#include "support/debug_types.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>

#include <vector>

namespace rootline {

namespace {

// The element, member and index path of byte `offset` inside an object of type `t`.
std::string pathIn(const llvm::DIType *t, uint64_t offset, unsigned depth = 0) {
  t = strippedType(t);
  auto *c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t);
  if (!c || depth > 8)
    return "";
  if (c->getTag() == llvm::dwarf::DW_TAG_array_type) {
    const llvm::DIType *elem = strippedType(c->getBaseType());
    uint64_t size = elem ? elem->getSizeInBits() / 8 : 0;
    if (size == 0)
      return "";
    // One array type holds every dimension of `int g[3][4]`: row-major indices.
    std::vector<uint64_t> dims;
    for (const llvm::DINode *n : c->getElements())
      if (auto *sr = llvm::dyn_cast<llvm::DISubrange>(n)) {
        auto count = sr->getCount();
        auto *ci = llvm::dyn_cast_if_present<llvm::ConstantInt *>(count);
        dims.push_back(ci ? ci->getZExtValue() : 0);
      }
    uint64_t flat = offset / size;
    std::vector<uint64_t> idx(dims.empty() ? 1 : dims.size());
    for (size_t k = idx.size(); k-- > 1;) {
      uint64_t d = dims[k] ? dims[k] : 1;
      idx[k] = flat % d;
      flat /= d;
    }
    idx[0] = flat;
    std::string s;
    for (uint64_t i : idx)
      s += "[" + std::to_string(i) + "]";
    return s + pathIn(elem, offset % size, depth + 1);
  }
  if (c->getTag() == llvm::dwarf::DW_TAG_structure_type ||
      c->getTag() == llvm::dwarf::DW_TAG_union_type) {
    for (const llvm::DINode *n : c->getElements()) {
      auto *m = llvm::dyn_cast<llvm::DIDerivedType>(n);
      if (!m || m->getTag() != llvm::dwarf::DW_TAG_member)
        continue;
      uint64_t from = m->getOffsetInBits() / 8, bytes = m->getSizeInBits() / 8;
      if (bytes == 0)
        bytes = 1; // a bitfield of under 8 bits
      if (offset >= from && offset < from + bytes)
        return "." + m->getName().str() + pathIn(m->getBaseType(), offset - from, depth + 1);
    }
  }
  return "";
}

} // namespace

void SourceNames::add(uint64_t addr, uint64_t size, Named named) {
  // Storage reused by a new object replaces the older ones.
  auto it = named_.lower_bound(addr);
  if (it != named_.begin()) {
    auto before = std::prev(it);
    if (before->first + before->second.size > addr)
      it = before;
  }
  while (it != named_.end() && it->first < addr + size)
    it = named_.erase(it);
  if (!named.name.empty())
    named_[addr] = std::move(named);
}

void SourceNames::onAlloca(const llvm::AllocaInst *alloca, uint64_t addr, uint64_t size) {
  auto [it, fresh] = locals_.try_emplace(alloca);
  if (fresh) {
    auto *v = const_cast<llvm::AllocaInst *>(alloca);
    auto declare = [&](const llvm::DILocalVariable *var) {
      if (var)
        it->second = {var->getName().str(), var->getType()};
    };
    for (auto *d : llvm::findDbgDeclares(v))
      declare(d->getVariable());
    if (it->second.first.empty())
      for (auto *r : llvm::findDVRDeclares(v))
        declare(r->getVariable());
  }
  add(addr, size, Named{size, it->second.first, it->second.second});
}

void SourceNames::onGlobal(const llvm::GlobalVariable *gv, uint64_t addr, uint64_t size) {
  Named n;
  n.size = size;
  if (gv) {
    llvm::SmallVector<llvm::DIGlobalVariableExpression *, 1> infos;
    gv->getDebugInfo(infos);
    for (auto *info : infos)
      if (auto *var = info->getVariable()) {
        n.name = var->getName().str();
        n.type = var->getType();
      }
  }
  add(addr, size, std::move(n));
}

std::string SourceNames::nameAt(uint64_t addr) const {
  auto it = named_.upper_bound(addr);
  if (it == named_.begin())
    return "";
  --it;
  if (addr >= it->first + it->second.size)
    return "";
  return it->second.name + pathIn(it->second.type, addr - it->first);
}

std::string SourceNames::fresh(const std::string &base) {
  unsigned n = ++used_[base];
  return n == 1 ? base : base + "#" + std::to_string(n);
}

} // namespace rootline
