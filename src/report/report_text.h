// Private to the report writers (debug, bisect, validate): pieces every format shares.
#pragma once

#include "rootline/debug.h"

#include <nlohmann/json.hpp>

#include <string>

namespace rootline::report {

nlohmann::json runJson(const RunSummary &run);          // {"outcome", "stdout"}
nlohmann::json inputJson(const ProgramInput &input);    // {"stdin", "args"[, "files"]}
std::string oneLine(std::string text, size_t max = 80); // newlines as spaces, cut at max
std::string markdownFence(const std::string &text);     // a ``` block ending in a newline
std::string htmlEscape(const std::string &text);        // < > & "

} // namespace rootline::report
