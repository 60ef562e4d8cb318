// A job's Z3 context, destroyed on a thread of its own so that its end does not hold
// the job up (docs/symbolic.md, "The solver context's end").
//
// Z3 4.8 (Debian 12) leaks terms when a check is cancelled by its timeout while it
// simplifies and bit-blasts. The context's destructor frees leaked terms in passes over
// every term it holds, one pass per level of the deepest: after a composition whose
// queries timed out, destroying the context took 22 s, longer than the job.
#pragma once

#include <z3++.h>

#include <memory>
#include <thread>

namespace rootline {

class SolverContext {
public:
  SolverContext();
  // Hands the context to the reaper thread: its terms are freed there, after every
  // expression of it (declared after this object) is gone. Waits while two contexts
  // handed over before are still being freed.
  ~SolverContext();
  SolverContext(const SolverContext &) = delete;
  SolverContext &operator=(const SolverContext &) = delete;

  z3::context &get() { return *ctx_; }
  operator z3::context &() { return *ctx_; }

private:
  std::unique_ptr<z3::context> ctx_;
};

// Contexts handed over and not yet destroyed.
unsigned solverContextsPending();

// Blocks until every context handed over so far is destroyed. Returns at once when
// none is pending.
void waitForSolverContexts();

// For tests: while held, the reaper destroys nothing (a job that hands over a third
// context then waits, as it does while two are being freed).
void holdSolverContextReaper(bool held);

// The thread that destroyed the last context the reaper finished (for tests).
std::thread::id lastSolverContextReaper();

// For a command line about to exit: true when contexts are still being destroyed, so
// that the process may end with `_exit` after flushing its output instead of waiting.
// Static destructors then do not run; nothing of rootline's needs them.
bool exitWithoutWaitingForSolvers();

} // namespace rootline
