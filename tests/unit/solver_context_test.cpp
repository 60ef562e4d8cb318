// A job's Z3 context is destroyed on the reaper thread (rootline/solver_context.h):
// a context whose timed-out checks leaked terms can take longer to free than the job.
#include "rootline/solver_context.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

using namespace rootline;

TEST_CASE("a solver context is destroyed on the reaper thread, and waiting for it ends",
          "[solver]") {
  waitForSolverContexts();
  CHECK(solverContextsPending() == 0);
  CHECK_FALSE(exitWithoutWaitingForSolvers());
  {
    SolverContext holder;
    z3::context &ctx = holder;
    // A product chain that a 1 ms check gives up on while it bit-blasts: the checks
    // that leak terms in Z3 4.8.
    z3::expr x = ctx.bv_const("x", 64), y = ctx.bv_const("y", 64), acc = x;
    for (int i = 0; i < 12; ++i)
      acc = (acc * y) ^ (acc / (y | 1));
    z3::solver s(ctx);
    z3::params p(ctx);
    p.set("timeout", 1u);
    s.set(p);
    s.add(acc == ctx.bv_val(12345, 64));
    s.check(); // unknown when it gave up
  } // the expressions and the solver go first, then the context is handed over
  waitForSolverContexts();
  CHECK(solverContextsPending() == 0);
  CHECK_FALSE(exitWithoutWaitingForSolvers());
  std::thread::id reaper = lastSolverContextReaper();
  CHECK(reaper != std::thread::id());
  CHECK(reaper != std::this_thread::get_id());
}

TEST_CASE("solver contexts handed over one after another are all destroyed", "[solver]") {
  for (int i = 0; i < 5; ++i) {
    SolverContext holder;
    z3::context &ctx = holder;
    z3::solver s(ctx);
    s.add(ctx.int_const("n") > i);
    CHECK(s.check() == z3::sat);
  }
  waitForSolverContexts();
  CHECK(solverContextsPending() == 0);
}

TEST_CASE("a job that hands over a third solver context waits while two are being freed",
          "[solver]") {
  waitForSolverContexts();
  holdSolverContextReaper(true);
  {
    SolverContext a;
  }
  {
    SolverContext b;
  }
  CHECK(solverContextsPending() == 2);
  std::atomic<bool> handedOver{false};
  std::thread third([&] {
    {
      SolverContext c;
    }
    handedOver = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK_FALSE(handedOver); // it waits for the reaper, which frees nothing while held
  CHECK(solverContextsPending() == 2);
  holdSolverContextReaper(false);
  third.join();
  CHECK(handedOver);
  waitForSolverContexts();
  CHECK(solverContextsPending() == 0);
}
