#include "support/debug_types.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugProgramInstruction.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IntrinsicInst.h>

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

std::vector<std::string> parameterNames(const llvm::Function &fn) {
  std::vector<std::string> names(fn.arg_size());
  auto take = [&](const llvm::DILocalVariable *v) {
    if (v && v->getArg() > 0 && v->getArg() <= names.size() && names[v->getArg() - 1].empty())
      names[v->getArg() - 1] = v->getName().str();
  };
  for (const llvm::BasicBlock &bb : fn)
    for (const llvm::Instruction &i : bb) {
      if (auto *d = llvm::dyn_cast<llvm::DbgVariableIntrinsic>(&i))
        take(d->getVariable());
      for (const llvm::DbgVariableRecord &r : llvm::filterDbgVars(i.getDbgRecordRange()))
        take(r.getVariable());
    }
  return names;
}

} // namespace rootline
