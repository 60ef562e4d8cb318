// JSON text for output files and stdout. Program input and output bytes need not be
// UTF-8; invalid sequences become U+FFFD instead of aborting the report.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace rootline {

inline std::string jsonText(const nlohmann::json &j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace rootline
