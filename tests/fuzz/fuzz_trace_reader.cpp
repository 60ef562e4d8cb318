// libFuzzer target: the trace reader (docs/trace-format.md) on arbitrary bytes. Every
// input either decodes into events or ends in a rootline::Error, with no crash, no
// hang and no allocation beyond the input's size.
#include "rootline/error.h"
#include "rootline/trace.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    rootline::TraceReader reader =
        rootline::TraceReader::fromBytes(std::string(reinterpret_cast<const char *>(data), size));
    rootline::Event ev;
    uint64_t events = 0;
    while (reader.next(ev) && events < (1u << 20))
      ++events;
  } catch (const rootline::Error &e) {
    // A one-line error is the expected answer to bad bytes.
    if (std::string(e.what()).find('\n') != std::string::npos)
      __builtin_trap();
  }
  return 0;
}
