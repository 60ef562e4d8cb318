// The calls of one function in a traced run, and the state one of them began with,
// rebuilt from the trace (include/rootline/carve.h).
#include "rootline/carve.h"

#include "rootline/module_index.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <bitset>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace rootline {

namespace {

// A known instruction of `function`'s watched line: compared by the path's end, since
// reports name files relative to a version's root.
bool sameFile(const std::string &path, const std::string &rel) {
  return path == rel || (path.size() > rel.size() && path.ends_with(rel) &&
                         path[path.size() - rel.size() - 1] == '/');
}

// Follows the outermost activation of one function: opened by the instance right after
// a call whose callee's first instance is in the function, or by the function's first
// instruction entered from uninstrumented code (a callback: qsort's comparator), and
// closed by the first instance back at the caller's depth (or the run's end). A
// callback's arguments are not operands of any traced call: they are taken from the
// stores of its parameters into their slots (every unoptimised function begins so).
class CallTracker {
public:
  explicit CallTracker(const llvm::Function *fn) : fn_(fn) {}

  // Returns whether this instance opened an activation.
  bool step(const Instance &I, bool &closed) {
    closed = false;
    // A callback returns to uninstrumented code, whose next callback may come at the
    // same depth: it ends after its own frame's return.
    if (open_ && (I.depth <= depth_ || returned_)) {
      open_ = returned_ = false;
      closed = true;
      finishedArgs_ = args_;
    }
    bool opened = false;
    if (!open_ && I.inst->getFunction() == fn_) {
      bool called = last_ && I.depth == lastDepth_ + 1;
      bool callback = !called && I.depth > 0 && I.inst == &fn_->getEntryBlock().front();
      if (called || callback) {
        open_ = opened = true;
        depth_ = called ? lastDepth_ : I.depth - 1;
        ++occurrence_;
        callInstance_ = called ? lastIndex_ : I.index;
        args_ = called ? lastArgs_ : std::vector<Val>(fn_->arg_size());
        fromOutside_ = callback;
      }
    }
    if (fromOutside_ && inOwnFrame(I) && llvm::isa<llvm::ReturnInst>(I.inst))
      returned_ = true;
    if (fromOutside_ && inOwnFrame(I))
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(I.inst))
        if (auto *arg = llvm::dyn_cast<llvm::Argument>(store->getValueOperand());
            arg && arg->getParent() == fn_ && !I.operands.empty())
          args_[arg->getArgNo()] = I.operands[0].value;
    last_ = false;
    if (auto *call = llvm::dyn_cast<llvm::CallBase>(I.inst);
        call && !I.external && !llvm::isa<llvm::IntrinsicInst>(call)) {
      last_ = true;
      lastDepth_ = I.depth;
      lastIndex_ = I.index;
      lastArgs_.clear();
      for (unsigned k = 0; k < call->arg_size() && k < I.operands.size(); ++k)
        lastArgs_.push_back(I.operands[k].value);
    }
    return opened;
  }
  bool open() const { return open_; }
  // An instance of the activation's own frame (not of a callee).
  bool inOwnFrame(const Instance &I) const { return open_ && I.depth == depth_ + 1; }
  uint64_t occurrence() const { return occurrence_; }
  uint64_t callInstance() const { return callInstance_; }
  // The open activation's arguments, and those of the one that closed last.
  const std::vector<Val> &args() const { return args_; }
  const std::vector<Val> &finishedArgs() const { return finishedArgs_; }

private:
  const llvm::Function *fn_;
  bool open_ = false, last_ = false, fromOutside_ = false, returned_ = false;
  uint32_t depth_ = 0, lastDepth_ = 0;
  uint64_t occurrence_ = 0, callInstance_ = 0, lastIndex_ = 0;
  std::vector<Val> args_, lastArgs_, finishedArgs_;
};

// Byte values of the process's memory as far as the trace gives them.
class ValueShadow {
public:
  void set(uint64_t addr, const uint8_t *bytes, uint64_t len) {
    for (uint64_t i = 0; i < len; ++i) {
      Page &p = page(addr + i);
      p.value[(addr + i) & kMask] = bytes[i];
      p.known.set((addr + i) & kMask);
    }
  }
  void fill(uint64_t addr, uint8_t byte, uint64_t len) {
    for (uint64_t i = 0; i < len; ++i)
      set(addr + i, &byte, 1);
  }
  void forget(uint64_t addr, uint64_t len) {
    for (uint64_t i = 0; i < len; ++i)
      if (auto it = pages_.find((addr + i) >> kBits); it != pages_.end())
        it->second->known.reset((addr + i) & kMask);
  }
  std::optional<uint8_t> get(uint64_t addr) const {
    auto it = pages_.find(addr >> kBits);
    if (it == pages_.end() || !it->second->known.test(addr & kMask))
      return std::nullopt;
    return it->second->value[addr & kMask];
  }
  void copy(uint64_t dst, uint64_t src, uint64_t len) {
    std::vector<std::optional<uint8_t>> tmp(len);
    for (uint64_t i = 0; i < len; ++i)
      tmp[i] = get(src + i);
    for (uint64_t i = 0; i < len; ++i) {
      if (tmp[i])
        set(dst + i, &*tmp[i], 1);
      else
        forget(dst + i, 1);
    }
  }

private:
  static constexpr unsigned kBits = 12;
  static constexpr uint64_t kMask = (1u << kBits) - 1;
  struct Page {
    uint8_t value[1u << kBits];
    std::bitset<(1u << kBits)> known;
  };
  Page &page(uint64_t addr) {
    auto &p = pages_[addr >> kBits];
    if (!p)
      p = std::make_unique<Page>();
    return *p;
  }
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
};

struct LiveObject {
  uint64_t size = 0;
  CarvedObject::Kind kind = CarvedObject::Kind::Heap;
  const llvm::GlobalVariable *global = nullptr;
};

// Bounds of a carved state: a call that reads more than this is carved in part.
inline constexpr uint64_t kMaxObjectBytes = 64u << 10, kMaxStateBytes = 512u << 10;
inline constexpr size_t kMaxObjects = 256;
// Addresses of the traced run that the test does not rebuild, listed in the test.
inline constexpr size_t kMaxStaleAddresses = 4096;
// Bytes read in memory no traced allocation made are one block when this close.
inline constexpr uint64_t kForeignGap = 16;
// Calls kept of a run: the first half and the last half of them.
inline constexpr size_t kKeptCalls = 48;

struct Carver : ReplayObserver {
  Carver(const llvm::Function *fn, std::string file, unsigned line, const std::string &stdinBytes)
      : tracker(fn), fn(fn), file(std::move(file)), line(line), stdinBytes(stdinBytes) {}

  void onGlobal(const llvm::GlobalVariable *gv, uint64_t addr, uint64_t size) override {
    place(addr, {size, CarvedObject::Kind::Global, gv});
  }
  void onFunction(const llvm::Function *f, uint64_t addr) override { functionAt[addr] = f; }
  void onArgv(const ArgvString &a) override {
    shadow.set(a.addr, reinterpret_cast<const uint8_t *>(a.bytes.data()), a.bytes.size());
  }

  void onInstance(const Instance &I) override {
    bool closed = false;
    bool opened = tracker.step(I, closed);
    if (closed && active) {
      args = tracker.finishedArgs(); // a callback's are known only once it ran
      callEnd = I.index;
      finishCall();
    }
    if (opened) {
      active = true;
      throughLine = false;
      occurrence = tracker.occurrence();
      callStart = I.index;
    }
    lastIndex = I.index;
    if (active && !throughLine && watched(I.inst))
      throughLine = true;
    effects(I);
  }
  // The run ended inside the call (a crash there): it is carved as far as it went.
  void finish() {
    if (active) {
      args = tracker.args();
      callEnd = lastIndex + 1;
      finishCall();
    }
  }

  bool watched(const llvm::Instruction *inst) {
    auto [it, fresh] = watchedCache.try_emplace(inst, false);
    if (fresh) {
      SourceLocation loc = ModuleIndex::locationOf(inst);
      it->second = loc.valid() && loc.line == line && sameFile(loc.path(), file);
    }
    return it->second;
  }

  // Keeps the first calls through the watched line and the last ones (kKeptCalls).
  void finishCall();

  // ---- what one instance did to memory ----------------------------------------------
  void effects(const Instance &I) {
    const llvm::Instruction *inst = I.inst;
    if (llvm::isa<llvm::LoadInst>(inst)) {
      uint8_t bytes[16];
      bool exact = valBytes(I.result, I.size, bytes);
      for (uint64_t i = 0; i < I.size; ++i) {
        std::optional<uint8_t> v =
            exact ? std::optional<uint8_t>(bytes[i]) : shadow.get(I.addr + i);
        read(I.addr + i, v);
      }
      if (exact)
        shadow.set(I.addr, bytes, I.size);
      return;
    }
    if (llvm::isa<llvm::StoreInst>(inst)) {
      uint8_t bytes[16];
      bool exact = !I.operands.empty() && valBytes(I.operands[0].value, I.size, bytes);
      wrote(I.addr, I.size);
      if (exact)
        shadow.set(I.addr, bytes, I.size);
      else
        shadow.forget(I.addr, I.size);
      return;
    }
    if (llvm::isa<llvm::AllocaInst>(inst)) {
      place(I.addr, {I.size, CarvedObject::Kind::Stack, nullptr});
      if (active)
        allocatedInCall.insert(I.addr);
      shadow.forget(I.addr, I.size);
      return;
    }
    if (llvm::isa<llvm::AtomicRMWInst>(inst) || llvm::isa<llvm::AtomicCmpXchgInst>(inst)) {
      wrote(I.addr, I.size);
      shadow.forget(I.addr, I.size);
      return;
    }
    if (auto *mi = llvm::dyn_cast<llvm::MemIntrinsic>(inst)) {
      if (I.operands.size() < 3)
        return;
      uint64_t dst = I.operands[0].value.lo, len = I.operands[2].value.lo;
      if (llvm::isa<llvm::MemTransferInst>(mi)) {
        uint64_t src = I.operands[1].value.lo;
        for (uint64_t i = 0; i < len; ++i)
          read(src + i, shadow.get(src + i));
        wrote(dst, len);
        shadow.copy(dst, src, len);
      } else {
        wrote(dst, len);
        shadow.fill(dst, static_cast<uint8_t>(I.operands[1].value.lo), len);
      }
      return;
    }
    if (!I.external)
      return;
    // A libc call: its reads first (it reads its inputs before it writes), then writes.
    for (const Event &e : I.effects)
      if (e.tag == Ev::MEM_READ)
        for (uint64_t i = 0; i < e.b; ++i)
          read(e.a + i, shadow.get(e.a + i));
      else if (e.tag == Ev::MEM_COPY)
        for (uint64_t i = 0; i < e.c; ++i)
          read(e.b + i, shadow.get(e.b + i));
    for (const Event &e : I.effects) {
      switch (e.tag) {
      case Ev::SOURCE:
        source = e.a;
        break;
      case Ev::MEM_WRITE:
        wrote(e.a, e.b);
        shadow.forget(e.a, e.b);
        break;
      case Ev::MEM_COPY:
        wrote(e.a, e.c);
        shadow.copy(e.a, e.b, e.c);
        break;
      case Ev::MEM_SET:
        wrote(e.a, e.c);
        shadow.fill(e.a, static_cast<uint8_t>(e.b), e.c);
        break;
      case Ev::INPUT:
        wrote(e.b, e.c);
        if (source == 0 && e.a + e.c <= stdinBytes.size())
          shadow.set(e.b, reinterpret_cast<const uint8_t *>(stdinBytes.data()) + e.a, e.c);
        else
          shadow.forget(e.b, e.c);
        break;
      case Ev::TOKEN:
        wrote(e.c, e.d);
        if (source == 0 && e.a + e.b <= stdinBytes.size())
          storeToken(stdinBytes.substr(e.a, e.b), e.c, e.d, static_cast<char>(e.e & 0x7f));
        else
          shadow.forget(e.c, e.d);
        break;
      case Ev::MEM_TOKEN:
        if (e.c) {
          wrote(e.c, e.d);
          std::string text;
          for (uint64_t i = 0; i < e.b; ++i)
            if (auto v = shadow.get(e.a + i))
              text += static_cast<char>(*v);
          if (text.size() == e.b)
            storeToken(text, e.c, e.d, static_cast<char>(e.e & 0x7f));
          else
            shadow.forget(e.c, e.d);
        }
        break;
      case Ev::HEAP_ALLOC:
        place(e.a, {e.b, CarvedObject::Kind::Heap, nullptr});
        if (active)
          allocatedInCall.insert(e.a);
        break;
      case Ev::HEAP_FREE:
        objects.erase(e.a);
        break;
      default:
        break;
      }
      if (e.tag != Ev::SOURCE &&
          (e.tag == Ev::INPUT || e.tag == Ev::INPUT_CHAR || e.tag == Ev::TOKEN))
        source = 0; // the next input event names its source again when it is not stdin
    }
  }

  // The value a scanf conversion stored: the token's text parsed as the conversion
  // does (numbers in the stored size, strings with their NUL, characters as they are).
  void storeToken(const std::string &text, uint64_t addr, uint64_t size, char conv) {
    uint8_t bytes[16] = {0};
    if (conv == 's' || conv == '[' || conv == 'c') {
      std::string v = conv == 'c' ? text : text + '\0';
      if (v.size() == size || conv != 'c')
        shadow.set(addr, reinterpret_cast<const uint8_t *>(v.data()),
                   std::min<uint64_t>(v.size(), size));
      else
        shadow.forget(addr, size);
      return;
    }
    if (size > 16) {
      shadow.forget(addr, size);
      return;
    }
    if (conv == 'f' || conv == 'e' || conv == 'g' || conv == 'a' || conv == 'E' || conv == 'G') {
      if (size == 4) {
        float f = std::strtof(text.c_str(), nullptr);
        std::memcpy(bytes, &f, 4);
      } else if (size == 8) {
        double d = std::strtod(text.c_str(), nullptr);
        std::memcpy(bytes, &d, 8);
      } else {
        shadow.forget(addr, size);
        return;
      }
    } else {
      int base = conv == 'x' || conv == 'X' || conv == 'p' ? 16
                 : conv == 'o'                             ? 8
                 : conv == 'i'                             ? 0
                                                           : 10;
      uint64_t v = conv == 'u' || conv == 'x' || conv == 'X' || conv == 'o' || conv == 'p'
                       ? std::strtoull(text.c_str(), nullptr, base)
                       : static_cast<uint64_t>(std::strtoll(text.c_str(), nullptr, base));
      for (uint64_t i = 0; i < size && i < 8; ++i)
        bytes[i] = static_cast<uint8_t>(v >> (8 * i));
    }
    shadow.set(addr, bytes, size);
  }

  static bool valBytes(const Val &v, uint64_t size, uint8_t *out) {
    if (size > 16)
      return false;
    for (uint64_t i = 0; i < size; ++i)
      out[i] = static_cast<uint8_t>(i < 8 ? v.lo >> (8 * i) : v.hi >> (8 * (i - 8)));
    return true;
  }

  // Objects: the newest one at an address replaces any it overlaps (a dead frame's).
  void place(uint64_t addr, LiveObject o) {
    if (o.size == 0)
      return;
    auto it = objects.lower_bound(addr);
    if (it != objects.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second.size > addr)
        it = prev;
    }
    while (it != objects.end() && it->first < addr + o.size)
      it = objects.erase(it);
    objects[addr] = o;
  }
  const std::pair<const uint64_t, LiveObject> *containing(uint64_t addr) const {
    auto it = objects.upper_bound(addr);
    if (it == objects.begin())
      return nullptr;
    --it;
    return addr < it->first + it->second.size ? &*it : nullptr;
  }
  // Whether a word was an address in the traced run: within 4 GiB of an object the run
  // made (its data, heap or stack), as the test's own check goes in its process.
  bool addressLike(uint64_t v) const {
    constexpr uint64_t kNear = uint64_t(1) << 32;
    auto it = objects.lower_bound(v);
    if (it != objects.end() && it->first - v < kNear)
      return true;
    return it != objects.begin() && v - std::prev(it)->first < kNear;
  }

  // ---- the call's reads and writes --------------------------------------------------
  void read(uint64_t addr, std::optional<uint8_t> value) {
    if (!active || writtenInCall.count(addr) || readBefore.count(addr))
      return;
    const auto *o = containing(addr);
    if (o && allocatedInCall.count(o->first))
      return; // memory the call made itself
    readBefore[addr] = value;
    if (o)
      touched.try_emplace(o->first, o->second);
    else
      foreign.insert(addr); // memory uninstrumented code made (qsort's buffer, getenv's)
  }
  void wrote(uint64_t addr, uint64_t len) {
    if (!active)
      return;
    for (uint64_t i = 0; i < len; ++i)
      if (writtenInCall.insert(addr + i).second)
        before.emplace(addr + i, shadow.get(addr + i));
    // A global the call only writes (a table it fills, a stack it pushes on) is part of
    // what it leaves: carved, so the test compares it. Written memory reached through
    // pointers is carved by those pointers.
    if (const auto *o = containing(addr); o && o->second.kind == CarvedObject::Kind::Global)
      touched.try_emplace(o->first, o->second);
  }
  // What the byte held when the call began.
  std::optional<uint8_t> initial(uint64_t addr) const {
    if (auto it = readBefore.find(addr); it != readBefore.end())
      return it->second;
    if (auto it = before.find(addr); it != before.end())
      return it->second;
    return shadow.get(addr);
  }

  CallTracker tracker;
  const llvm::Function *fn;
  std::string file;
  unsigned line;
  const std::string &stdinBytes;
  std::unordered_map<const llvm::Instruction *, bool> watchedCache;
  bool active = false, throughLine = false;
  uint64_t occurrence = 0, source = 0;
  uint64_t callStart = 0, callEnd = 0, lastIndex = 0; // the open call's instances: [start, end)
  std::vector<Val> args;
  std::vector<CarvedCall> first;
  std::deque<CarvedCall> last;
  ValueShadow shadow;
  std::map<uint64_t, LiveObject> objects;
  std::unordered_set<uint64_t> allocatedInCall, writtenInCall;
  std::unordered_map<uint64_t, std::optional<uint8_t>> readBefore, before;
  std::map<uint64_t, LiveObject> touched;
  std::set<uint64_t> foreign; // bytes read in memory no traced allocation made
  std::unordered_map<uint64_t, const llvm::Function *> functionAt; // by address in the run
};

// The compile unit a global was defined in, by its debug info (a function's static: its
// function's unit); null without debug info.
const llvm::DICompileUnit *unitOf(const llvm::GlobalVariable &g) {
  llvm::SmallVector<llvm::DIGlobalVariableExpression *, 1> dis;
  g.getDebugInfo(dis);
  for (const auto *e : dis) {
    const llvm::DIScope *s = e->getVariable() ? e->getVariable()->getScope() : nullptr;
    for (unsigned depth = 0; s && depth < 64; ++depth) {
      if (const auto *cu = llvm::dyn_cast<llvm::DICompileUnit>(s))
        return cu;
      if (const auto *sp = llvm::dyn_cast<llvm::DISubprogram>(s))
        return sp->getUnit();
      s = s->getScope();
    }
  }
  return nullptr;
}

// Whether a static symbol defined in `unit` is out of reach by name from a test that
// includes the carved function's unit.
bool inOtherUnit(const llvm::DICompileUnit *unit, const llvm::Function *fn) {
  const llvm::DISubprogram *sp = fn ? fn->getSubprogram() : nullptr;
  return unit && sp && sp->getUnit() && unit != sp->getUnit();
}

CarvedObject carvedObject(const Carver &c, uint64_t start, const LiveObject &o) {
  CarvedObject out;
  out.kind = o.kind;
  out.addr = start;
  out.size = std::min(o.size, kMaxObjectBytes);
  if (o.global) {
    out.global = o.global->getName().str();
    out.internal = o.global->hasLocalLinkage();
    out.otherUnit = out.internal && inOtherUnit(unitOf(*o.global), c.fn);
    out.constant = o.global->isConstant();
  }
  out.bytes.assign(out.size, 0);
  out.known.assign(out.size, false);
  out.read.assign(out.size, false);
  out.written.assign(out.size, false);
  for (uint64_t i = 0; i < out.size; ++i) {
    out.read[i] = c.readBefore.count(start + i) > 0;
    out.written[i] = c.writtenInCall.count(start + i) > 0;
  }
  for (uint64_t i = 0; i < out.size; ++i)
    if (auto v = c.initial(start + i)) {
      out.bytes[i] = *v;
      out.known[i] = true;
    }
  // A constant global (a string literal) holds its initializer: the bytes the trace
  // never saw are known from the module.
  if (o.global && o.global->isConstant() && o.global->hasInitializer())
    if (auto *data = llvm::dyn_cast<llvm::ConstantDataSequential>(o.global->getInitializer())) {
      llvm::StringRef raw = data->getRawDataValues();
      for (uint64_t i = 0; i < out.size && i < raw.size(); ++i)
        if (!out.known[i]) {
          out.bytes[i] = static_cast<uint8_t>(raw[i]);
          out.known[i] = true;
        }
    }
  return out;
}

std::optional<uint64_t> word(const CarvedObject &o, uint64_t off) {
  uint64_t v = 0;
  for (unsigned i = 0; i < 8; ++i) {
    if (off + i >= o.size || !o.known[off + i])
      return std::nullopt;
    v |= static_cast<uint64_t>(o.bytes[off + i]) << (8 * i);
  }
  return v;
}

CarvedCall carvedState(const Carver &c) {
  const llvm::Function *fn = c.fn;
  CarvedCall out;
  out.function = fn->getName().str();
  out.occurrence = c.occurrence;
  out.args = c.args;
  for (const auto &[addr, value] : c.readBefore)
    out.unknownBytes += !value.has_value();
  // The objects the call read, whole; then the objects their pointers (and the pointer
  // arguments) point into, a few links deep, so that another version of the function
  // that follows other pointers finds them too.
  std::map<uint64_t, size_t> index; // object start → position in out.objects
  uint64_t total = 0;
  auto add = [&](uint64_t start, const LiveObject &o) -> std::optional<size_t> {
    if (auto it = index.find(start); it != index.end())
      return it->second;
    if (out.objects.size() >= kMaxObjects ||
        total + std::min(o.size, kMaxObjectBytes) > kMaxStateBytes)
      return std::nullopt;
    index[start] = out.objects.size();
    out.objects.push_back(carvedObject(c, start, o));
    total += out.objects.back().size;
    return out.objects.size() - 1;
  };
  for (const auto &[start, o] : c.touched)
    add(start, o);
  // Memory uninstrumented code made that the call read: a block per run of bytes read
  // (gaps of up to kForeignGap bytes joined), rebuilt on the heap like any other when an
  // argument or a carved pointer points into it (qsort's elements; not libc's own
  // tables, which the function reaches through libc again).
  std::map<uint64_t, LiveObject> foreign;
  for (auto it = c.foreign.begin(); it != c.foreign.end();) {
    uint64_t start = *it, end = *it + 1;
    for (++it; it != c.foreign.end() && *it <= end + kForeignGap; ++it)
      end = *it + 1;
    foreign[start] = {end - start, CarvedObject::Kind::Heap, nullptr};
  }
  auto containing = [&](uint64_t addr) -> const std::pair<const uint64_t, LiveObject> * {
    if (const auto *o = c.containing(addr))
      return o;
    auto it = foreign.upper_bound(addr);
    if (it == foreign.begin())
      return nullptr;
    --it;
    return addr < it->first + it->second.size ? &*it : nullptr;
  };
  auto targetOf = [&](uint64_t value) -> std::optional<std::pair<size_t, uint64_t>> {
    const auto *o = value ? containing(value) : nullptr;
    if (!o || c.allocatedInCall.count(o->first))
      return std::nullopt;
    auto k = add(o->first, o->second);
    if (!k || value - o->first >= out.objects[*k].size)
      return std::nullopt;
    return std::make_pair(*k, value - o->first);
  };
  // A function's address (a callback, a method table's entry) is the same function in
  // the test's build.
  std::map<const llvm::Function *, size_t> functionIndex;
  auto functionOf = [&](uint64_t value) -> std::optional<size_t> {
    auto it = value ? c.functionAt.find(value) : c.functionAt.end();
    if (it == c.functionAt.end() || !it->second->hasName() || it->second->isIntrinsic())
      return std::nullopt;
    const llvm::Function *f = it->second;
    auto [at, fresh] = functionIndex.try_emplace(f, out.functions.size());
    if (fresh) {
      CarvedFunction cf;
      cf.name = f->getName().str();
      cf.internal = f->hasLocalLinkage();
      cf.otherUnit =
          cf.internal &&
          inOtherUnit(f->getSubprogram() ? f->getSubprogram()->getUnit() : nullptr, c.fn);
      out.functions.push_back(cf);
    }
    return at->second;
  };
  for (unsigned a = 0; a < out.args.size(); ++a) {
    bool pointer = a < fn->arg_size() && fn->getArg(a)->getType()->isPointerTy();
    out.argTargets.push_back(pointer ? targetOf(out.args[a].lo) : std::nullopt);
    out.argFunctions.push_back(pointer && !out.argTargets.back() ? functionOf(out.args[a].lo)
                                                                 : std::nullopt);
  }
  for (unsigned depth = 0, from = 0; depth < 3; ++depth) {
    size_t to = out.objects.size();
    for (size_t k = from; k < to; ++k)
      for (uint64_t off = out.objects[k].firstWord(); off + 8 <= out.objects[k].size; off += 8)
        if (auto w = word(out.objects[k], off))
          targetOf(*w);
    from = static_cast<unsigned>(to);
  }
  // A word that points into a carved object points into its copy. By the carved
  // objects' own extents: an object the call freed (the array a realloc moved) is no
  // longer live at the call's end, but the call read the pointer to it.
  auto carvedAt = [&](uint64_t value) -> std::optional<std::pair<size_t, uint64_t>> {
    auto it = index.upper_bound(value);
    if (it == index.begin())
      return std::nullopt;
    --it;
    if (value - it->first >= out.objects[it->second].size)
      return std::nullopt;
    return std::make_pair(it->second, value - it->first);
  };
  std::set<uint64_t> stale;
  for (size_t k = 0; k < out.objects.size(); ++k)
    for (uint64_t off = out.objects[k].firstWord(); off + 8 <= out.objects[k].size; off += 8)
      if (auto w = word(out.objects[k], off); w && *w) {
        if (auto t = carvedAt(*w)) {
          out.pointers.push_back({k, off, t->first, t->second});
        } else if (auto f = functionOf(*w)) {
          out.functionWords.push_back({k, off, *f});
        } else if (c.addressLike(*w) && stale.size() < kMaxStaleAddresses) {
          stale.insert(*w);
        }
      }
  out.staleAddresses.assign(stale.begin(), stale.end());
  return out;
}

void Carver::finishCall() {
  active = false;
  if (throughLine) {
    CarvedCall call = carvedState(*this);
    call.instances = callEnd - callStart;
    if (first.size() < kKeptCalls / 2) {
      first.push_back(std::move(call));
    } else {
      last.push_back(std::move(call));
      if (last.size() > kKeptCalls / 2)
        last.pop_front();
    }
  }
  writtenInCall.clear();
  readBefore.clear();
  before.clear();
  touched.clear();
  allocatedInCall.clear();
}

} // namespace

std::vector<CarvedCall> carveCalls(const AnalysedVersion &v, const fs::path &trace,
                                   const std::string &function, const std::string &file,
                                   unsigned line, const std::string &stdinBytes,
                                   const Deadline &deadline) {
  const llvm::Function *fn = v.module.module->getFunction(function);
  if (!fn || fn->isDeclaration())
    return {};
  Carver c(fn, file, line, stdinBytes);
  TraceReader reader(trace, v.program.module.key);
  ReplayLimits limits;
  limits.deadline = deadline;
  limits.stopAtMismatch = true;
  replayTrace(*v.module.module, *v.index, reader, &c, limits);
  c.finish();
  std::vector<CarvedCall> out = std::move(c.first);
  for (auto &call : c.last)
    out.push_back(std::move(call));
  return out;
}

} // namespace rootline
