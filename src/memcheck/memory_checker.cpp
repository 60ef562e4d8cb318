// Replay-time memory checking (include/rootline/memory_check.h). Objects are kept by
// start address; each pointer-valued instance remembers the object it was derived from
// in a direct-mapped table (at -O0 an address is used a few instances after it is
// computed), so an access past an array's end that lands in its neighbour is still an
// overflow of the array, as ASan's redzones would say.
#include "rootline/memory_check.h"

#include "rootline/module_index.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Operator.h>

#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace rootline {

namespace {

enum class ObjectKind { Stack, Global, Heap };

struct Object {
  uint64_t id = 0; // unique per allocation: a block freed and reused is another object
  uint64_t size = 0;
  ObjectKind kind = ObjectKind::Stack;
  const llvm::Value *decl = nullptr;
  uint64_t instance = kNoDef;
  uint64_t freedBy = kNoDef; // heap blocks after free
};

// A pointer's provenance: the allocation it was derived from.
struct Provenance {
  uint64_t start = ~0ull, id = 0;
  bool known() const { return start != ~0ull; }
};
constexpr Provenance kNoObject{};

bool isScalar(const llvm::Type *t) {
  return t->isIntegerTy() || t->isFloatingPointTy() || t->isPointerTy();
}

// The global a constant pointer is computed from (`@eval_stack`, also in
// `getelementptr (@eval_stack, -1)`), if any.
const llvm::GlobalVariable *baseGlobal(const llvm::Value *v) {
  for (unsigned steps = 0; v && steps < 16; ++steps) {
    if (auto *g = llvm::dyn_cast<llvm::GlobalVariable>(v))
      return g;
    if (auto *gep = llvm::dyn_cast<llvm::GEPOperator>(v))
      v = gep->getPointerOperand();
    else if (auto *op = llvm::dyn_cast<llvm::Operator>(v);
             op && (op->getOpcode() == llvm::Instruction::BitCast ||
                    op->getOpcode() == llvm::Instruction::AddrSpaceCast))
      v = op->getOperand(0);
    else
      return nullptr;
  }
  return nullptr;
}

// The LLVM value of an instance's k-th operand (calls: the k-th argument).
const llvm::Value *operandValue(const Instance &I, size_t k) {
  if (auto *call = llvm::dyn_cast<llvm::CallBase>(I.inst))
    return k < call->arg_size() ? call->getArgOperand(static_cast<unsigned>(k)) : nullptr;
  if (llvm::isa<llvm::PHINode>(I.inst) || I.operands.size() != I.inst->getNumOperands())
    return nullptr;
  return k < I.inst->getNumOperands() ? I.inst->getOperand(static_cast<unsigned>(k)) : nullptr;
}

} // namespace

struct MemoryChecker::Impl {
  std::map<uint64_t, Object> live;  // by start address
  std::map<uint64_t, Object> freed; // by allocation id
  std::map<uint64_t, std::vector<uint64_t>> frameObjects;
  uint64_t nextId = 1;
  // Provenance of pointer-valued instances (instance index -> provenance), direct-mapped,
  // and of pointers stored in memory (address -> provenance), so a pointer kept in a
  // struct still names its block after that block was freed and its memory reused.
  static constexpr size_t kSlots = 1u << 16;
  std::vector<std::pair<uint64_t, Provenance>> provenance =
      std::vector<std::pair<uint64_t, Provenance>>(kSlots, {kNoDef, kNoObject});
  std::map<uint64_t, Provenance> storedPointers;
  // Objects a call replay cannot see into was given (an unwrapped libc function such as
  // frexp or time, inline asm): what it wrote is not in the trace, so reading them
  // is not called uninitialised.
  std::set<uint64_t> opaquelyWritten; // by allocation id
  static constexpr size_t kMaxStoredPointers = 1u << 20;
  std::vector<MemoryFinding> findings;
  // Where each global lies, and the objects the arguments of the call being entered
  // (then of each live activation) point into: a pointer computed before the start of
  // its array (`execute (code, eval_stack - 1, 0)`, a constant) lies in whatever global
  // precedes it, so its object comes from how it was computed, not from where it is.
  std::unordered_map<const llvm::GlobalVariable *, uint64_t> globalStart;
  struct PendingCall {
    const llvm::Function *callee = nullptr;
    uint32_t depth = 0;
    std::vector<Provenance> args;
  };
  std::optional<PendingCall> pendingCall;
  std::unordered_map<uint64_t, std::vector<Provenance>> frameArgs; // by frame

  void remember(uint64_t instance, Provenance p) {
    provenance[instance & (kSlots - 1)] = {instance, p};
  }
  Provenance provenanceOf(uint64_t def) const {
    if (def == kNoDef)
      return kNoObject;
    auto &slot = provenance[def & (kSlots - 1)];
    return slot.first == def ? slot.second : kNoObject;
  }

  // The live object holding `addr`, else one that ends exactly there (a pointer one
  // past an array's end, the start of a loop's bound).
  Provenance containing(uint64_t addr) const {
    auto it = live.upper_bound(addr);
    if (it == live.begin())
      return kNoObject;
    --it;
    if (addr <= it->first + it->second.size)
      return {it->first, it->second.id};
    return kNoObject;
  }

  // The object an operand that no instance computed points into: a constant computed
  // from a global, or a parameter whose caller passed a pointer with a known object.
  Provenance operandObject(const Instance &I, size_t k) const {
    if (k >= I.operands.size())
      return kNoObject;
    if (Provenance p = provenanceOf(I.operands[k].def); p.known())
      return p;
    const llvm::Value *v = operandValue(I, k);
    if (!v)
      return kNoObject;
    if (auto *arg = llvm::dyn_cast<llvm::Argument>(v)) {
      auto it = frameArgs.find(I.frame);
      return it != frameArgs.end() && arg->getArgNo() < it->second.size()
                 ? it->second[arg->getArgNo()]
                 : kNoObject;
    }
    if (auto *g = baseGlobal(v)) {
      auto at = globalStart.find(g);
      if (at == globalStart.end())
        return kNoObject;
      auto it = live.find(at->second);
      return it != live.end() ? Provenance{at->second, it->second.id} : kNoObject;
    }
    return kNoObject;
  }
  // As above, else the object the operand's value lies in.
  Provenance operandObjectOrContaining(const Instance &I, size_t k) const {
    Provenance p = operandObject(I, k);
    return p.known() || k >= I.operands.size() ? p : containing(I.operands[k].value.lo);
  }

  // The object a provenance names, live or freed.
  const Object *objectOf(Provenance p, bool &isFreed) const {
    isFreed = false;
    if (!p.known())
      return nullptr;
    auto it = live.find(p.start);
    if (it != live.end() && it->second.id == p.id)
      return &it->second;
    auto f = freed.find(p.id);
    if (f != freed.end()) {
      isFreed = true;
      return &f->second;
    }
    return nullptr;
  }

  // Returns whether a finding was made for this access.
  bool report(const Instance &I, const char *kind, uint64_t start, const Object &o, uint64_t addr,
              uint64_t size, bool write) {
    if (findings.size() >= kMaxFindings)
      return true;
    MemoryFinding f;
    f.kind = kind;
    f.instance = I.index;
    f.access = I.inst;
    f.write = write;
    f.accessSize = size;
    f.offset = static_cast<int64_t>(addr - start);
    f.objectSize = o.size;
    f.object = o.decl;
    f.objectInstance = o.instance;
    f.freeInstance = o.freedBy;
    findings.push_back(f);
    return true;
  }

  static const char *overflowKind(ObjectKind k) {
    switch (k) {
    case ObjectKind::Stack:
      return "stack-buffer-overflow";
    case ObjectKind::Global:
      return "global-buffer-overflow";
    case ObjectKind::Heap:
      return "heap-buffer-overflow";
    }
    return "buffer-overflow";
  }

  // [addr, addr+size) through a pointer derived from `prov` (unknown: the object the
  // address lies in). Returns whether a finding was made.
  bool check(const Instance &I, Provenance prov, uint64_t addr, uint64_t size, bool write) {
    if (size == 0)
      return false;
    if (!prov.known())
      prov = containing(addr);
    bool isFreed = false;
    const Object *o = objectOf(prov, isFreed);
    if (!o)
      return false;
    if (isFreed)
      return report(I, "heap-use-after-free", prov.start, *o, addr, size, write);
    if (addr < prov.start || addr + size > prov.start + o->size)
      return report(I, overflowKind(o->kind), prov.start, *o, addr, size, write);
    return false;
  }

  // Stored pointers move with the bytes that hold them (memcpy, memmove, a struct
  // copy) and are gone when something else is written there.
  void clearPointers(uint64_t addr, uint64_t len) {
    storedPointers.erase(storedPointers.lower_bound(addr), storedPointers.lower_bound(addr + len));
  }
  void movePointers(uint64_t dst, uint64_t src, uint64_t len) {
    std::vector<std::pair<uint64_t, Provenance>> moved(storedPointers.lower_bound(src),
                                                       storedPointers.lower_bound(src + len));
    clearPointers(dst, len);
    for (auto &[a, p] : moved)
      storedPointers[a - src + dst] = p;
  }

  // A new object starts with no pointers stored in it (stack memory is reused).
  void add(uint64_t start, Object o) {
    o.id = nextId++;
    live[start] = o;
    clearPointers(start, o.size);
  }

  void free(uint64_t start, uint64_t by) {
    auto it = live.find(start);
    if (it == live.end())
      return;
    Object o = it->second;
    o.freedBy = by;
    live.erase(it);
    freed[o.id] = o;
    if (freed.size() > kMaxStoredPointers) // long runs: forget the oldest blocks
      freed.erase(freed.begin());
  }

  void onInstance(const Instance &I) {
    const llvm::Instruction *inst = I.inst;
    if (pendingCall) {
      if (I.depth == pendingCall->depth + 1 &&
          (!pendingCall->callee || inst->getFunction() == pendingCall->callee))
        frameArgs[I.frame] = std::move(pendingCall->args);
      pendingCall.reset();
    }
    switch (inst->getOpcode()) {
    case llvm::Instruction::Alloca:
      add(I.addr, {0, I.size, ObjectKind::Stack, inst, I.index, kNoDef});
      frameObjects[I.frame].push_back(I.addr);
      remember(I.index, containing(I.addr));
      return;
    case llvm::Instruction::Ret: {
      auto it = frameObjects.find(I.frame);
      if (it != frameObjects.end()) {
        for (uint64_t a : it->second)
          if (auto o = live.find(a); o != live.end() && o->second.kind == ObjectKind::Stack)
            live.erase(o);
        frameObjects.erase(it);
      }
      frameArgs.erase(I.frame);
      return;
    }
    case llvm::Instruction::GetElementPtr:
    case llvm::Instruction::BitCast:
    case llvm::Instruction::AddrSpaceCast:
    case llvm::Instruction::Select:
    case llvm::Instruction::PHI: {
      // Derived from the pointer operand's object; a select or phi from the operand it
      // chose (the one whose value it has).
      Provenance prov = kNoObject;
      for (size_t k = 0; k < I.operands.size(); ++k)
        if (I.operands[k].value == I.result ||
            inst->getOpcode() == llvm::Instruction::GetElementPtr ||
            inst->getOpcode() == llvm::Instruction::BitCast) {
          prov = inst->getOpcode() == llvm::Instruction::GetElementPtr
                     ? operandObjectOrContaining(I, k)
                     : operandObject(I, k);
          break;
        }
      if (inst->getType()->isPointerTy())
        remember(I.index, prov);
      return;
    }
    case llvm::Instruction::Load: {
      auto *ld = llvm::cast<llvm::LoadInst>(inst);
      Provenance prov = operandObject(I, 0);
      bool found = check(I, prov, I.addr, I.size, false);
      if (ld->getType()->isPointerTy()) {
        auto stored = storedPointers.find(I.addr);
        remember(I.index, stored != storedPointers.end() && stored->second.known()
                              ? stored->second
                              : containing(I.result.lo));
      }
      // Every byte unwritten, in a stack or heap object: an uninitialised read.
      if (!found && I.memUnwritten && I.memDefs.empty() && isScalar(ld->getType())) {
        Provenance in = containing(I.addr);
        bool isFreed = false;
        if (const Object *o = objectOf(in, isFreed);
            o && o->kind != ObjectKind::Global && !opaquelyWritten.count(in.id))
          report(I, "uninitialized-read", in.start, *o, I.addr, I.size, false);
      }
      return;
    }
    case llvm::Instruction::Store: {
      check(I, operandObject(I, 1), I.addr, I.size, true);
      auto *st = llvm::cast<llvm::StoreInst>(inst);
      if (st->getValueOperand()->getType()->isPointerTy()) {
        Provenance value = operandObjectOrContaining(I, 0);
        if (value.known() && storedPointers.size() < kMaxStoredPointers)
          storedPointers[I.addr] = value;
        else
          storedPointers.erase(I.addr);
      } else if (!storedPointers.empty()) {
        clearPointers(I.addr, I.size);
      }
      return;
    }
    case llvm::Instruction::Call:
    case llvm::Instruction::Invoke:
      onCall(I);
      return;
    default:
      return;
    }
  }

  // The provenance of the call argument whose value is `addr`, if any.
  Provenance argumentObject(const Instance &I, uint64_t addr) const {
    for (size_t k = 0; k < I.operands.size(); ++k)
      if (I.operands[k].value.lo == addr)
        if (Provenance p = operandObject(I, k); p.known())
          return p;
    return kNoObject;
  }

  void onCall(const Instance &I) {
    auto *call = llvm::cast<llvm::CallBase>(I.inst);
    if (auto *ii = llvm::dyn_cast<llvm::IntrinsicInst>(call);
        ii && (ii->getIntrinsicID() == llvm::Intrinsic::vastart ||
               ii->getIntrinsicID() == llvm::Intrinsic::vacopy)) {
      if (!I.operands.empty()) // the va_list now holds the native argument areas
        clearPointers(I.operands[0].value.lo, 24);
      return;
    }
    if (auto *mi = llvm::dyn_cast<llvm::MemIntrinsic>(call)) {
      if (I.operands.size() >= 3) {
        uint64_t dst = I.operands[0].value.lo, len = I.operands[2].value.lo;
        check(I, operandObject(I, 0), dst, len, true);
        if (llvm::isa<llvm::MemTransferInst>(mi)) {
          check(I, operandObject(I, 1), I.operands[1].value.lo, len, false);
          movePointers(dst, I.operands[1].value.lo, len);
        } else {
          clearPointers(dst, len);
        }
      }
      return;
    }
    if (!I.external) {
      // Entering an instrumented function: its parameters' objects.
      PendingCall entering;
      entering.callee = call->getCalledFunction();
      entering.depth = I.depth;
      // A byval argument arrives as a copy at another address: no object carries over.
      for (size_t k = 0; k < I.operands.size(); ++k) {
        const llvm::Value *arg = operandValue(I, k);
        bool pointer = arg && arg->getType()->isPointerTy() &&
                       !call->isPassPointeeByValueArgument(static_cast<unsigned>(k));
        entering.args.push_back(pointer ? operandObjectOrContaining(I, k) : kNoObject);
      }
      pendingCall = std::move(entering);
      return;
    }
    const llvm::Function *callee = call->getCalledFunction();
    if (call->isInlineAsm() || !callee || !isWrappedLibcFunction(callee->getName())) {
      for (size_t k = 0; k < I.operands.size(); ++k) {
        Provenance p = operandObjectOrContaining(I, k);
        bool isFreed = false;
        if (const Object *o = objectOf(p, isFreed)) {
          opaquelyWritten.insert(p.id);
          clearPointers(p.start, o->size); // it may have written pointers there too
        }
      }
    }
    Provenance allocated = kNoObject;
    for (const Event &e : I.effects) {
      switch (e.tag) {
      case Ev::HEAP_ALLOC:
        if (auto it = live.find(e.a); it != live.end() && it->second.kind == ObjectKind::Heap) {
          it->second.size = e.b; // resized in place
        } else {
          add(e.a, {0, e.b, ObjectKind::Heap, I.inst, I.index, kNoDef});
        }
        allocated = containing(e.a);
        break;
      case Ev::HEAP_FREE:
        free(e.a, I.index);
        break;
      case Ev::MEM_WRITE:
        check(I, argumentObject(I, e.a), e.a, e.b, true);
        clearPointers(e.a, e.b);
        break;
      case Ev::MEM_READ:
        check(I, argumentObject(I, e.a), e.a, e.b, false);
        break;
      case Ev::MEM_COPY:
        check(I, argumentObject(I, e.a), e.a, e.c, true);
        check(I, argumentObject(I, e.b), e.b, e.c, false);
        movePointers(e.a, e.b, e.c);
        break;
      case Ev::MEM_SET:
        check(I, argumentObject(I, e.a), e.a, e.c, true);
        clearPointers(e.a, e.c);
        break;
      case Ev::INPUT:
        check(I, argumentObject(I, e.b), e.b, e.c, true);
        clearPointers(e.b, e.c);
        break;
      case Ev::TOKEN:
        check(I, argumentObject(I, e.c), e.c, e.d, true);
        clearPointers(e.c, e.d);
        break;
      case Ev::OUTPUT: // bytes printed from memory (%s, puts, fwrite)
        if (e.d)
          check(I, argumentObject(I, e.d), e.d, e.e, false);
        break;
      default:
        break;
      }
    }
    if (call->getType()->isPointerTy())
      remember(I.index, allocated.known() ? allocated : containing(I.result.lo));
  }
};

MemoryChecker::MemoryChecker() : impl_(std::make_unique<Impl>()) {}
MemoryChecker::~MemoryChecker() = default;
void MemoryChecker::onInstance(const Instance &I) { impl_->onInstance(I); }
void MemoryChecker::onGlobal(const llvm::GlobalVariable *gv, uint64_t addr, uint64_t size) {
  impl_->add(addr, {0, size, ObjectKind::Global, gv, kNoDef, kNoDef});
  impl_->globalStart[gv] = addr;
}
std::vector<MemoryFinding> MemoryChecker::take() { return std::move(impl_->findings); }

} // namespace rootline
