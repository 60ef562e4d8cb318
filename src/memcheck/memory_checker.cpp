// Replay-time memory checking (include/rootline/memory_check.h). Objects are kept by
// start address; each pointer-valued instance remembers the object it was derived from
// in a direct-mapped table (at -O0 an address is used a few instances after it is
// computed), so an access past an array's end that lands in its neighbour is still an
// overflow of the array, as ASan's redzones would say.
#include "rootline/memory_check.h"

#include "rootline/module_index.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <map>
#include <set>

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
  bool report(const Instance &I, const char *kind, uint64_t start, const Object &o,
              uint64_t addr, uint64_t size, bool write) {
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
    std::vector<std::pair<uint64_t, Provenance>> moved(
        storedPointers.lower_bound(src), storedPointers.lower_bound(src + len));
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
      for (const Operand &op : I.operands)
        if (op.value == I.result || inst->getOpcode() == llvm::Instruction::GetElementPtr ||
            inst->getOpcode() == llvm::Instruction::BitCast) {
          prov = provenanceOf(op.def);
          if (!prov.known() && inst->getOpcode() == llvm::Instruction::GetElementPtr)
            prov = containing(op.value.lo);
          break;
        }
      if (inst->getType()->isPointerTy())
        remember(I.index, prov);
      return;
    }
    case llvm::Instruction::Load: {
      auto *ld = llvm::cast<llvm::LoadInst>(inst);
      Provenance prov = I.operands.empty() ? kNoObject : provenanceOf(I.operands[0].def);
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
      Provenance prov = I.operands.size() > 1 ? provenanceOf(I.operands[1].def) : kNoObject;
      check(I, prov, I.addr, I.size, true);
      auto *st = llvm::cast<llvm::StoreInst>(inst);
      if (st->getValueOperand()->getType()->isPointerTy()) {
        Provenance value = provenanceOf(I.operands[0].def);
        if (!value.known())
          value = containing(I.operands[0].value.lo);
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
    for (const Operand &op : I.operands)
      if (op.value.lo == addr)
        if (Provenance p = provenanceOf(op.def); p.known())
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
        check(I, provenanceOf(I.operands[0].def), dst, len, true);
        if (llvm::isa<llvm::MemTransferInst>(mi)) {
          check(I, provenanceOf(I.operands[1].def), I.operands[1].value.lo, len, false);
          movePointers(dst, I.operands[1].value.lo, len);
        } else {
          clearPointers(dst, len);
        }
      }
      return;
    }
    if (!I.external)
      return;
    const llvm::Function *callee = call->getCalledFunction();
    if (call->isInlineAsm() || !callee || !isWrappedLibcFunction(callee->getName())) {
      for (const Operand &op : I.operands) {
        Provenance p = provenanceOf(op.def);
        if (!p.known())
          p = containing(op.value.lo);
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
}
std::vector<MemoryFinding> MemoryChecker::take() { return std::move(impl_->findings); }

} // namespace rootline
