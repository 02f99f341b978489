// Config files for the commands that take them (sweep presets, gate configs, acceptance profiles): YAML or JSON
// (JSON is YAML), read into JSON with the line of every value, then checked against the keys the command
// declares. Every problem is one line "FILE:LINE: KEY: what is wrong (accepted: ...)", so a user fixes all of
// them in one pass.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lib/core/status.h"

namespace commbench::config {

struct ConfigFile {
  std::string path;
  nlohmann::json values;             // the document; an object at the top
  std::map<std::string, int> lines;  // "a.b[2].c" -> 1-based line of that value
  int LineOf(const std::string& key) const;
};

// Bounds on what a config may be, so that no file can exhaust memory or the stack (a YAML alias bomb, an alias
// inside its own anchor, a huge or deeply nested file): every config we ship is a few KB, a few hundred values and
// four levels deep. Each is refused with one line naming the bound. Aliases stay allowed (a profile may reuse a
// block), but every value counts each time an alias brings it in.
inline constexpr size_t kMaxConfigBytes = 1 << 20;
inline constexpr int kMaxConfigValues = 100000;
inline constexpr int kMaxConfigDepth = 64;

// Reads and parses `path` (YAML 1.2 or JSON). Plain YAML scalars become booleans, integers, numbers or null as
// they read; quoted ones stay strings. A syntax error or a top level that is not a mapping is one line naming
// the file and line.
StatusOr<ConfigFile> ReadConfigFile(const std::string& path);
StatusOr<ConfigFile> ParseConfigText(const std::string& text, const std::string& path);

// kScalarOrList: a string, number or boolean, or a list of strings and numbers (a flag that takes a list).
enum class ValueType { kBool, kInteger, kNumber, kString, kStringList, kObject, kObjectList, kScalarOrList };

struct KeySpec {
  std::string name;
  ValueType type = ValueType::kString;
  std::string accepted;  // what is accepted, for messages ("a size like 4K", "ring, tree")
  // Checks the value beyond its type; returns "" when good, else what is wrong (without the key or line).
  std::function<std::string(const nlohmann::json&)> check;
  std::vector<KeySpec> children;  // kObject and kObjectList: the keys inside
  bool required = false;
};

// A key with its type and what it accepts; set `check`, `children` and `required` on the result as needed.
KeySpec Key(std::string name, ValueType type, std::string accepted = "");

// Every problem of `file` against `keys`, one line each ("" when none): unknown keys (naming the accepted
// ones), missing required keys, wrong types, values the key's check refuses.
std::vector<std::string> CheckConfig(const ConfigFile& file, const std::vector<KeySpec>& keys);

// A ValueType in words ("a list of strings").
const char* Describe(ValueType type);

}  // namespace commbench::config
