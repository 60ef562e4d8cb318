#include "support/debug_types.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>

namespace rootline {

namespace {

bool isTypedefOrQualifier(unsigned tag) {
  return tag == llvm::dwarf::DW_TAG_typedef || tag == llvm::dwarf::DW_TAG_const_type ||
         tag == llvm::dwarf::DW_TAG_volatile_type || tag == llvm::dwarf::DW_TAG_restrict_type ||
         tag == llvm::dwarf::DW_TAG_atomic_type;
}

} // namespace

const llvm::DIType *strippedType(const llvm::DIType *t) {
  while (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t)) {
    if (!isTypedefOrQualifier(d->getTag()))
      break;
    t = d->getBaseType();
  }
  return t;
}

std::string structNameOf(const llvm::DIType *t) {
  std::string typedefName;
  while (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t)) {
    if (!isTypedefOrQualifier(d->getTag()))
      return "";
    if (d->getTag() == llvm::dwarf::DW_TAG_typedef && typedefName.empty())
      typedefName = d->getName().str();
    t = d->getBaseType();
  }
  auto *c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t);
  if (!c || (c->getTag() != llvm::dwarf::DW_TAG_structure_type &&
             c->getTag() != llvm::dwarf::DW_TAG_union_type))
    return "";
  return c->getName().empty() ? typedefName : c->getName().str();
}

} // namespace rootline
