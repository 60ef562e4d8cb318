// The symbolic layer of replay, as a replay observer: each instance goes to the part
// that models it (symbolic_replayer.h lists them); branches and switches add to the path
// condition, and the bug checks collect conditions under which the run would fail.
#include "symbolic/symbolic_replayer.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Module.h>

#include <set>

namespace rootline {

void SymbolicReplayer::Impl::onInstance(const Instance &I) {
  const llvm::Instruction *inst = I.inst;
  wanted = !options.only || (I.index < options.only->size() && (*options.only)[I.index]);
  switch (inst->getOpcode()) {
  case llvm::Instruction::Alloca:
    names.onAlloca(llvm::cast<llvm::AllocaInst>(inst), I.addr, I.size);
    addObject(I.addr, I.size);
    forget(I.addr, I.size);
    return;
  case llvm::Instruction::Load:
    return load(I, llvm::cast<llvm::LoadInst>(inst));
  case llvm::Instruction::Store:
    if (options.watch && std::binary_search(options.watch->begin(), options.watch->end(), I.index))
      if (const z3::expr *e = sym(I.operands[0]))
        run.watched.emplace(I.index, *e);
    return store(I, llvm::cast<llvm::StoreInst>(inst));
  case llvm::Instruction::Br:
    if (llvm::cast<llvm::BranchInst>(inst)->isConditional())
      if (const z3::expr *c = sym(I.operands[0]))
        constrain(I, I.successor == 0 ? *c == bv(1, 1) : *c == bv(0, 1),
                  addNodes(nodesOf(I.operands[0]), 2));
    return;
  case llvm::Instruction::Switch:
    return switchInst(I, llvm::cast<llvm::SwitchInst>(inst));
  case llvm::Instruction::Ret:
    if (!I.operands.empty())
      if (const z3::expr *e = sym(I.operands[0]))
        set(I, *e, nodesOf(I.operands[0]));
    return;
  case llvm::Instruction::PHI:
  case llvm::Instruction::Freeze:
    if (const z3::expr *e = sym(I.operands[0]))
      set(I, *e, nodesOf(I.operands[0]));
    return;
  case llvm::Instruction::Call:
    return call(I, llvm::cast<llvm::CallInst>(inst));
  case llvm::Instruction::AtomicRMW:
  case llvm::Instruction::AtomicCmpXchg:
    forget(I.addr, I.size); // what it wrote is concrete (atomics are not modelled)
    concretize();
    return;
  case llvm::Instruction::GetElementPtr:
    notePointerOrigin(I);
    noteCtypeIndex(I, llvm::cast<llvm::GetElementPtrInst>(inst));
    break;
  case llvm::Instruction::BitCast:
    if (inst->getType()->isPointerTy())
      notePointerOrigin(I);
    break;
  default:
    break;
  }
  if (!wanted || !anySymbolic(I))
    return;
  if (!tables.empty() && foldTable(I))
    return;
  computeValue(I);
}

void SymbolicReplayer::Impl::check(const char *kind, const Instance &I, const z3::expr &cond) {
  if (!wanted || !options.bugChecks)
    return;
  z3::expr c = simplified(cond, nodesOver(I));
  if (c.is_false())
    return;
  run.checks.push_back({kind, I.index, I.inst, c, run.path.size()});
}

void SymbolicReplayer::Impl::constrain(const Instance &I, const z3::expr &taken,
                                       uint32_t nodeCount) {
  uint32_t occurrence = occurrences[I.inst]++;
  if (!wanted)
    return;
  z3::expr t = simplified(taken, nodeCount);
  if (t.is_true())
    return; // the input cannot change this branch
  run.path.push_back({I.index, I.inst, occurrence, I.successor, t, nodeCount});
  run.pathNodes += nodeCount;
  if (options.maxPathNodes && run.pathNodes > options.maxPathNodes)
    run.saturated = true;
}

void SymbolicReplayer::Impl::switchInst(const Instance &I, const llvm::SwitchInst *sw) {
  const z3::expr *c = sym(I.operands[0]);
  if (!c)
    return;
  uint32_t nodeCount = addNodes(nodesOf(I.operands[0]), 3 * sw->getNumCases() + 1);
  unsigned w = c->get_sort().bv_size();
  if (I.successor == 0) { // default: no case matched
    z3::expr none = ctx.bool_val(true);
    for (auto &cs : sw->cases())
      none = none && *c != bv(cs.getCaseValue()->getZExtValue(), w);
    constrain(I, none, nodeCount);
  } else {
    z3::expr any = ctx.bool_val(false);
    for (auto &cs : sw->cases())
      if (cs.getSuccessorIndex() == I.successor)
        any = any || *c == bv(cs.getCaseValue()->getZExtValue(), w);
    constrain(I, any, nodeCount);
  }
}

SymbolicReplayer::SymbolicReplayer(z3::context &ctx, const llvm::Module &module,
                                   SymbolicOptions options)
    : impl_(std::make_unique<Impl>(ctx, module, options)) {}
SymbolicReplayer::~SymbolicReplayer() = default;

void SymbolicReplayer::onInstance(const Instance &I) { impl_->onInstance(I); }

void SymbolicReplayer::onGlobal(const llvm::GlobalVariable *gv, uint64_t addr, uint64_t size) {
  impl_->names.onGlobal(gv, addr, size);
  impl_->addObject(addr, size);
  // Initial contents of constant-initialised globals are known (array tables, strings,
  // structs, and the packed structs clang emits for sparse designated initialisers).
  if (!gv || !gv->hasInitializer() || size > kMaxArrayObject)
    return;
  impl_->knownConstant(gv->getInitializer(), addr);
}

void SymbolicReplayer::onArgv(const ArgvString &a) {
  impl_->addObject(a.addr, a.bytes.size());
  if (a.index == 0)
    return; // the program name is not an input
  for (size_t j = 0; j + 1 < a.bytes.size(); ++j) {
    z3::expr b = impl_->variable(
        argvByte(static_cast<unsigned>(a.index), j, static_cast<uint8_t>(a.bytes[j])));
    impl_->domain.push_back(b != impl_->bv(0, 8)); // the string keeps its length
    impl_->setByte(a.addr + j, b);
  }
  impl_->knownByte[a.addr + a.bytes.size() - 1] = 0;
}

bool SymbolicReplayer::wantsMore() const { return !impl_->run.saturated; }

SymbolicRun SymbolicReplayer::take() { return std::move(impl_->run); }

std::vector<InputVar> unionOfInputs(const std::vector<InputVar> &a,
                                    const std::vector<InputVar> &b) {
  std::vector<InputVar> out = a;
  std::set<std::string> names;
  for (const auto &v : out)
    names.insert(v.name);
  for (const auto &v : b)
    if (names.insert(v.name).second)
      out.push_back(v);
  return out;
}

z3::expr SymbolicRun::pathCondition(z3::context &ctx) const {
  z3::expr pc = ctx.bool_val(true);
  for (const auto &c : path)
    pc = pc && c.taken;
  return pc;
}

std::string SymbolicRun::smtlib(z3::context &ctx) const {
  z3::solver s(ctx);
  for (const auto &d : domain)
    s.add(d);
  for (const auto &c : path)
    s.add(c.taken);
  return s.to_smt2();
}

} // namespace rootline
