// Enum <-> name tables for the vocabulary the CLI parses (collectives, dtypes, streams, ...), with one error
// format: "<what> '<value>' (accepted: a, b, c)".
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/core/status.h"

namespace commbench {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

template <typename E, size_t N>
std::string_view NameOf(const NameTable<E, N>& table, E value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "?";
}

// `what` starts the error message, e.g. "unknown dtype" or "--stream: unknown value".
template <typename E, size_t N>
StatusOr<E> ParseName(const NameTable<E, N>& table, std::string_view s, std::string_view what) {
  std::string accepted;
  for (const auto& [e, name] : table) {
    if (name == s) return e;
    if (!accepted.empty()) accepted += ", ";
    accepted += name;
  }
  return InvalidArgument(std::string(what) + " '" + std::string(s) + "' (accepted: " + accepted + ")");
}

// Names as a sentence's list, in their order: "a, b, c" (the "accepted: ..." of an error, a help line).
inline std::string CommaList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A table's names as CommaList writes them, in the table's order.
template <typename E, size_t N>
std::string NamesOf(const NameTable<E, N>& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.second);
  return CommaList(names);
}

template <typename E, size_t N>
std::vector<E> ValuesOf(const NameTable<E, N>& table) {
  std::vector<E> out;
  for (const auto& entry : table) out.push_back(entry.first);
  return out;
}

}  // namespace commbench
