// Reads typed records out of JSON with validation: every field is checked for presence, type and range, and the
// first problem is reported with its path ("points[3].time_us.p50: expected a number, got a string"), so that a
// file that parses as JSON but breaks the schema is one clear error, never a silent 0.
#pragma once

#include <climits>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/name_table.h"
#include "lib/core/status.h"

namespace commbench::result {

// The first schema problem of one read (later ones are usually consequences of the first).
class SchemaErrors {
 public:
  void Add(const std::string& path, const std::string& what);
  bool ok() const { return first_.empty(); }
  // OK, or InvalidArgument("<path>: <what>").
  Status status() const;

 private:
  std::string first_;
};

// One JSON object at `path`. Getters return a neutral value after recording an error, so a reader can fill a
// whole record and check `errors` once at the end.
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& value, std::string path, SchemaErrors* errors);

  bool Has(const char* key) const;
  bool IsNull(const char* key) const;

  double Number(const char* key, double min = -HUGE_VAL);  // finite, >= min
  std::optional<double> NullableNumber(const char* key);
  // Optional fields: absent gives `fallback`; present with the wrong type is still an error.
  double NumberOr(const char* key, double fallback) { return Has(key) ? Number(key) : fallback; }
  bool BoolOr(const char* key, bool fallback) {
    return Has(key) ? Bool(key) : fallback;
  }  // null for a non-finite value the writer could not write
  int64_t Int(const char* key, int64_t min = INT64_MIN);
  // An integer the record keeps as int (ranks, groups, pids): a larger one is an error, never truncated.
  int SmallInt(const char* key, int min = INT_MIN);
  uint64_t Unsigned(const char* key);
  bool Bool(const char* key);
  std::string String(const char* key);
  std::vector<std::string> Strings(const char* key);
  std::vector<double> Numbers(const char* key);
  std::vector<int64_t> Ints(const char* key, int64_t min = INT64_MIN, int64_t max = INT64_MAX);

  // A list of names, each parsed by `parse(name, what)` (the axis parsers of lib/core/axes.h).
  template <typename E, typename Parse>
  std::vector<E> Names(const char* key, Parse parse) {
    std::vector<E> out;
    const std::vector<std::string> names = Strings(key);
    for (size_t i = 0; i < names.size(); ++i) {
      auto v = parse(names[i], "unknown value");
      if (!v.ok()) {
        errors_->Add(PathOf(PathOf(key), i), v.status().message());
        return {};
      }
      out.push_back(*v);
    }
    return out;
  }

  // One name parsed by `parse(name, what)` (an axis parser of lib/core/axes.h); `fallback` after an error.
  template <typename E, typename Parse>
  E Parsed(const char* key, Parse parse, E fallback) {
    auto v = parse(String(key), "unknown value");
    if (!v.ok()) {
      Error(key, v.status().message());
      return fallback;
    }
    return *v;
  }

  template <typename E, size_t N>
  E Enum(const char* key, const NameTable<E, N>& table) {
    const std::string name = String(key);
    auto parsed = ParseName(table, name, "unknown value");
    if (!parsed.ok()) {
      Error(key, parsed.status().message());
      return table[0].first;
    }
    return *parsed;
  }

  ObjectReader Object(const char* key);
  // The array's elements (empty after recording an error when `key` is not an array).
  std::vector<const nlohmann::json*> Array(const char* key);

  std::string PathOf(const char* key) const;
  static std::string PathOf(const std::string& array_path, size_t index);
  SchemaErrors* errors() const { return errors_; }
  const nlohmann::json& value() const { return *value_; }

 private:
  const nlohmann::json* Field(const char* key);  // nullptr after recording "missing"
  void Error(const char* key, const std::string& what);

  const nlohmann::json* value_;
  std::string path_;
  SchemaErrors* errors_;
};

// Our documents nest a few levels; deeper input is refused, because copying or writing a JSON value recurses once
// per level (100000 levels, a 200 KB file, overflow the stack).
inline constexpr int kMaxJsonDepth = 100;

// A parser callback for json::parse that discards everything nested deeper than kMaxJsonDepth (nothing deep is
// ever built) and sets *too_deep; the result is then discarded as a whole.
nlohmann::json::parser_callback_t DepthLimit(bool* too_deep);

// DepthLimit, and a key given twice in one object sets *duplicate to its path ("points[2].repeats.p50_us"): JSON
// leaves duplicates undefined and nlohmann keeps the last, so a file could show one value and be judged on another.
nlohmann::json::parser_callback_t DepthAndDuplicateCheck(bool* too_deep, std::string* duplicate);

// json::parse(text) with DepthLimit, without exceptions: InvalidArgument("not valid JSON" or "JSON nested deeper
// than 100 levels"), for the caller to prefix with what it read.
StatusOr<nlohmann::json> ParseJsonLine(const std::string& text);

// "a string", "an array", ... for error messages.
std::string KindOf(const nlohmann::json& value);

}  // namespace commbench::result
