// Post-dominators, branch joins and may-def sets (DESIGN.md 2.3). May-def sets are
// conservative: a store whose target is not known statically may define anything,
// which only makes slices larger, never wrong.
#include "rootline/analysis.h"

#include "rootline/module_index.h"

#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <map>

namespace rootline {

// DenseSet<unsigned> reserves ~0u (empty) and ~0u - 1 (tombstone).
static_assert(kOutputLoc != ~0u && kOutputLoc != ~0u - 1,
              "abstract locations must be storable in a DenseSet");

bool isOutputFunction(llvm::StringRef name) {
  name.consume_back("_unlocked");
  return name == "error" || name == "error_at_line" || name == "err" || name == "errx" ||
         name == "warn" || name == "warnx" || name == "vwarn" || name == "vwarnx" ||
         name == "printf" || name == "fprintf" || name == "vprintf" || name == "vfprintf" ||
         name == "puts" || name == "putchar" || name == "putc" || name == "fputc" ||
         name == "fputs" || name == "fwrite" || name == "write" || name == "perror";
}

AbsLoc allocaLoc(uint32_t id) { return id & 0x3fffffffu; }
AbsLoc globalLoc(uint32_t index) { return 0x80000000u | (index & 0x3fffffffu); }
AbsLoc heapLoc(uint32_t id) { return 0x40000000u | (id & 0x3fffffffu); }

struct StaticAnalysis::Impl {
  const llvm::Module &module;
  const ModuleIndex &index;
  std::map<const llvm::Function *, std::unique_ptr<llvm::PostDominatorTree>> pdts;
  llvm::DenseMap<const llvm::Function *, LocSet> mod; // transitive mod sets
  llvm::DenseMap<const llvm::BasicBlock *, LocSet>
      blockDefs; // direct writes of a block, calls included
  std::map<std::pair<const llvm::Instruction *, unsigned>, LocSet> mayDef;
  llvm::DenseMap<const llvm::Instruction *, const llvm::BasicBlock *> join;
  LocSet empty;

  Impl(const llvm::Module &m, const ModuleIndex &i) : module(m), index(i) {}

  AbsLoc locationOf(const llvm::Value *ptr) const {
    const llvm::Value *base = llvm::getUnderlyingObject(ptr, 0);
    if (auto *al = llvm::dyn_cast<llvm::AllocaInst>(base))
      return allocaLoc(index.idOf(al));
    if (auto *gv = llvm::dyn_cast<llvm::GlobalVariable>(base))
      return globalLoc(index.indexOf(gv));
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(base))
      if (const llvm::Function *f = call->getCalledFunction())
        if (f->getName() == "malloc" || f->getName() == "calloc" || f->getName() == "realloc" ||
            f->getName() == "strdup")
          return heapLoc(index.idOf(call));
    return kUnknownLoc;
  }

  void addLoc(LocSet &s, AbsLoc l) {
    if (l == kUnknownLoc)
      s.any = true;
    else
      s.locs.insert(l);
  }

  // What one instruction writes, not counting calls to functions with bodies.
  void directWrites(const llvm::Instruction &inst, LocSet &out,
                    std::vector<const llvm::Function *> &callees) {
    if (auto *st = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
      addLoc(out, locationOf(st->getPointerOperand()));
    } else if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
      const llvm::Function *f = call->getCalledFunction();
      if (f && f->isIntrinsic()) {
        if (auto *mi = llvm::dyn_cast<llvm::MemIntrinsic>(call))
          addLoc(out, locationOf(mi->getRawDest()));
        return;
      }
      if (f && !f->isDeclaration()) {
        callees.push_back(f);
        return;
      }
      if (!f) { // indirect: any function whose address is taken, or libc
        for (const llvm::Function &g : module)
          if (!g.isDeclaration() && g.hasAddressTaken())
            callees.push_back(&g);
      }
      if (f && isOutputFunction(f->getName()))
        out.locs.insert(kOutputLoc);
      // Uninstrumented code may write through any pointer it is given.
      for (const llvm::Use &arg : call->args())
        if (arg->getType()->isPointerTy() && !llvm::isa<llvm::Constant>(arg.get()))
          addLoc(out, locationOf(arg.get()));
    }
  }

  void computeModSets() {
    llvm::DenseMap<const llvm::Function *, std::vector<const llvm::Function *>> calls;
    for (const llvm::Function &f : module) {
      if (f.isDeclaration())
        continue;
      LocSet &own = mod[&f];
      for (const llvm::BasicBlock &bb : f) {
        LocSet &b = blockDefs[&bb];
        std::vector<const llvm::Function *> callees;
        for (const llvm::Instruction &inst : bb)
          directWrites(inst, b, callees);
        own.add(b);
        auto &cs = calls[&f];
        cs.insert(cs.end(), callees.begin(), callees.end());
      }
    }
    // Fixpoint over the call graph (recursion included).
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto &[f, callees] : calls) {
        LocSet &m = mod[f];
        for (const llvm::Function *g : callees) {
          const LocSet &gm = mod[g];
          size_t before = m.locs.size();
          bool anyBefore = m.any;
          m.add(gm);
          changed |= m.locs.size() != before || m.any != anyBefore;
        }
      }
    }
    // Block defs include what their callees may write.
    for (const llvm::Function &f : module) {
      if (f.isDeclaration())
        continue;
      for (const llvm::BasicBlock &bb : f)
        for (const llvm::Instruction &inst : bb)
          if (auto *call = llvm::dyn_cast<llvm::CallBase>(&inst)) {
            const llvm::Function *g = call->getCalledFunction();
            if (g && !g->isDeclaration())
              blockDefs[&bb].add(mod[g]);
            else if (!g)
              for (const llvm::Function &h : module)
                if (!h.isDeclaration() && h.hasAddressTaken())
                  blockDefs[&bb].add(mod[&h]);
          }
    }
  }

  // Blocks reachable from `start` without passing through `stop`.
  LocSet regionDefs(const llvm::BasicBlock *start, const llvm::BasicBlock *stop) {
    LocSet out;
    if (start == stop)
      return out;
    llvm::SmallPtrSet<const llvm::BasicBlock *, 16> seen;
    std::vector<const llvm::BasicBlock *> work = {start};
    while (!work.empty()) {
      const llvm::BasicBlock *b = work.back();
      work.pop_back();
      if (b == stop || !seen.insert(b).second)
        continue;
      out.add(blockDefs[b]);
      for (const llvm::BasicBlock *s : llvm::successors(b))
        work.push_back(s);
    }
    return out;
  }

  void computeBranches() {
    for (const llvm::Function &f : module) {
      if (f.isDeclaration())
        continue;
      auto pdt = std::make_unique<llvm::PostDominatorTree>(const_cast<llvm::Function &>(f));
      for (const llvm::BasicBlock &bb : f) {
        const llvm::Instruction *term = bb.getTerminator();
        if (!term || term->getNumSuccessors() < 2)
          continue;
        const llvm::DomTreeNode *node = pdt->getNode(&bb);
        const llvm::BasicBlock *ipdom =
            node && node->getIDom() ? node->getIDom()->getBlock() : nullptr;
        join[term] = ipdom;
        for (unsigned s = 0; s < term->getNumSuccessors(); ++s)
          mayDef[{term, s}] = regionDefs(term->getSuccessor(s), ipdom);
      }
      pdts[&f] = std::move(pdt);
    }
  }
};

StaticAnalysis::StaticAnalysis(const llvm::Module &module, const ModuleIndex &index)
    : impl_(std::make_unique<Impl>(module, index)) {
  impl_->computeModSets();
  impl_->computeBranches();
}

StaticAnalysis::~StaticAnalysis() = default;

const llvm::BasicBlock *StaticAnalysis::joinOf(const llvm::Instruction *branch) const {
  return impl_->join.lookup(branch);
}

const LocSet &StaticAnalysis::mayDef(const llvm::Instruction *branch, unsigned successor) const {
  auto it = impl_->mayDef.find({branch, successor});
  return it == impl_->mayDef.end() ? impl_->empty : it->second;
}

const LocSet &StaticAnalysis::modSet(const llvm::Function *fn) const {
  auto it = impl_->mod.find(fn);
  return it == impl_->mod.end() ? impl_->empty : it->second;
}

AbsLoc StaticAnalysis::locationOf(const llvm::Value *pointer) const {
  return impl_->locationOf(pointer);
}

} // namespace rootline
