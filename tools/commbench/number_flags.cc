#include "tools/commbench/number_flags.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace commbench::cli {
namespace {

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string Invalid(const std::string& text, const char* accepted) {
  return "invalid value '" + text + "' (accepted: " + accepted + ")";
}

// Rewrites `text` as the plain decimal CLI11 then reads; the error, or "".
std::string DecimalInteger(std::string& text, bool allow_negative) {
  const char* accepted = allow_negative ? "a decimal whole number from -9223372036854775808 to 9223372036854775807"
                                        : "a decimal whole number from 0 to 9223372036854775807";
  const bool negative = !text.empty() && text[0] == '-';
  const size_t digits_at = negative ? 1 : 0;
  if (text.size() == digits_at || text.find_first_not_of("0123456789", digits_at) != std::string::npos ||
      (negative && !allow_negative)) {
    return Invalid(text, accepted);
  }
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return Invalid(text, accepted);
  if (negative && value == 0) return Invalid(text, accepted);  // "-0"
  text = std::to_string(value);  // no leading zeros left for strtoll(.., 0) to read as octal
  return "";
}

// Read as CLI11 reads it (strtold, then to double), so that what passes here is what the flag will hold.
std::string FiniteNumber(const std::string& text) {
  char* end = nullptr;
  const double value = static_cast<double>(std::strtold(text.c_str(), &end));
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    return Invalid(text, "a finite decimal number, e.g. 0.5 or 1e-3");
  }
  return "";
}

}  // namespace

void RequireWellFormedNumbers(CLI::App* app) {
  for (CLI::Option* option : app->get_options()) {
    const std::string type = option->get_type_name();
    if (StartsWith(type, "UINT")) {
      option->transform(CLI::Validator([](std::string& s) { return DecimalInteger(s, false); }, ""));
    } else if (StartsWith(type, "INT")) {
      option->transform(CLI::Validator([](std::string& s) { return DecimalInteger(s, true); }, ""));
    } else if (StartsWith(type, "FLOAT")) {
      option->check(CLI::Validator([](std::string& s) { return FiniteNumber(s); }, ""));
    }
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) RequireWellFormedNumbers(sub);
}

}  // namespace commbench::cli
