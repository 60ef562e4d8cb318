// Events: reading the trace, matching each event against what replay expects (a
// mismatch ends replay with where and why), and the effects logged outside any call
// (output, input read, files opened) that the result counts.
#include "trace/replayer.h"

#include "rootline/error.h"

namespace rootline::replay {

void Replayer::mismatch(const llvm::Instruction *inst, const std::string &what) {
  throw Error("replay mismatch at " + ModuleIndex::describe(inst) + ": " + what, ExitInternal);
}

std::string Replayer::describeEvent(const Event &ev) {
  return std::string(eventName(ev.tag)) + " at trace byte " + std::to_string(ev.offset);
}

// The next event, which must be `tag` for instruction `inst`.
Event Replayer::expect(Ev tag, const llvm::Instruction *inst, Ev alt) {
  Event ev;
  if (!nextEvent(ev))
    throw RunEnd{RunOutcome::Incomplete};
  while (ev.tag == Ev::EXIT) { // main's return logs the exit status before RET
    result_.exitStatus = static_cast<int>(static_cast<uint32_t>(ev.a));
    sawExit_ = true;
    if (!nextEvent(ev))
      throw RunEnd{RunOutcome::Incomplete};
  }
  if (ev.tag == Ev::SIGNAL)
    throw CrashStop{inst, static_cast<int>(ev.a), ev.b};
  if (ev.tag == Ev::LIMIT)
    throw RunEnd{RunOutcome::Limit};
  if (ev.tag != tag && (alt == Ev::END || ev.tag != alt))
    mismatch(inst,
             std::string("trace has ") + describeEvent(ev) + ", replay expected " + eventName(tag));
  return ev;
}

void Replayer::expectId(const Event &ev, const llvm::Instruction *inst) {
  if (ev.a != index_.idOf(inst))
    mismatch(inst, describeEvent(ev) + " belongs to instruction " + std::to_string(ev.a) + " (" +
                       ModuleIndex::describe(index_.instruction(static_cast<uint32_t>(ev.a))) +
                       ")");
}

// A fatal signal logged right after this instruction is attributed to it (stores
// and calls log before they act).
void Replayer::crashIfSignalNext(const llvm::Instruction *inst) {
  Event ev;
  if (trace_.peek(ev) && ev.tag == Ev::SIGNAL) {
    nextEvent(ev);
    throw CrashStop{inst, static_cast<int>(ev.a), ev.b};
  }
}

bool Replayer::topLevelEvent() {
  Event ev;
  if (!nextEvent(ev)) {
    result_.outcome = RunOutcome::Incomplete;
    return false;
  }
  switch (ev.tag) {
  case Ev::FUNC:
    funcAt_[ev.b] = index_.function(static_cast<uint32_t>(ev.a));
    if (observer_ && funcAt_[ev.b])
      observer_->onFunction(funcAt_[ev.b], ev.b);
    return true;
  case Ev::GLOBAL:
    if (ev.a < globalAddr_.size()) {
      globalAddr_[ev.a] = ev.b;
      globalKnown_[ev.a] = true;
      if (observer_)
        observer_->onGlobal(index_.global(static_cast<uint32_t>(ev.a)), ev.b, ev.c);
    }
    return true;
  case Ev::ENTER:
  case Ev::ENTER_FRAME:
    enterFromOutside(ev);
    return true;
  case Ev::EXIT:
    result_.exitStatus = static_cast<int>(static_cast<uint32_t>(ev.a));
    sawExit_ = true;
    return true;
  case Ev::END:
    result_.outcome = sawExit_ ? RunOutcome::Exit : RunOutcome::Incomplete;
    return false;
  case Ev::SIGNAL:
    result_.outcome = RunOutcome::Signal;
    result_.signal = static_cast<int>(ev.a);
    result_.faultAddress = ev.b;
    return false;
  case Ev::LIMIT:
    result_.outcome = RunOutcome::Limit;
    return false;
  default:
    noteEffect(ev); // e.g. output from a destructor outside instrumented code
    return true;
  }
}

void Replayer::noteEffect(const Event &ev) {
  // SOURCE names the input source of the next input event; only stdin's count here.
  bool fromStdin = source_ == 0;
  if (ev.tag == Ev::INPUT || ev.tag == Ev::INPUT_CHAR || ev.tag == Ev::TOKEN)
    source_ = 0;
  switch (ev.tag) {
  case Ev::SOURCE:
    source_ = ev.a;
    break;
  case Ev::OPEN:
    result_.opened.push_back({ev.a, std::string(ev.bytes)});
    break;
  case Ev::OUTPUT:
    ++result_.outputEvents;
    if (ev.a == 1)
      result_.stdoutBytes.append(ev.bytes);
    else if (ev.a == 2)
      result_.stderrBytes.append(ev.bytes);
    break;
  case Ev::INPUT:
    if (fromStdin)
      result_.stdinBytes = std::max(result_.stdinBytes, ev.a + ev.c);
    break;
  case Ev::INPUT_CHAR:
    if (fromStdin)
      result_.stdinBytes = std::max(result_.stdinBytes, ev.a + 1);
    break;
  case Ev::TOKEN:
    ++result_.tokens;
    if (fromStdin)
      result_.stdinBytes = std::max(result_.stdinBytes, ev.a + ev.b);
    break;
  default:
    break;
  }
}

} // namespace rootline::replay
