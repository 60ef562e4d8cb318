// The traces of a test that runs many processes (ROOTLINE_TRACE_DIR): each traced
// process, forked children and exec'd images included, wrote p<N>.trace there, N
// counting processes in the order they started (docs/trace-format.md, "Processes").
#pragma once

#include "rootline/fs.h"
#include "rootline/trace.h"

#include <string>
#include <vector>

namespace rootline {

struct ProcessTrace {
  fs::path trace; // <dir>/p<N>.trace
  TraceHeader header;
  uint64_t number() const { return header.process.seq - 1; }
};

// A trace's header alone (the events are not read); throws Error like TraceReader.
TraceHeader readTraceHeader(const fs::path &trace);

// Every per-process trace in `dir`, by start order.
std::vector<ProcessTrace> processTraces(const fs::path &dir);

} // namespace rootline
