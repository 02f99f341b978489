#include "lib/config/config_file.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "lib/core/printable.h"

namespace commbench::config {
namespace {

using nlohmann::json;

// A plain scalar as YAML 1.2's core schema reads it. A numeral past the range of what it spells is refused: a
// rounded or infinite stand-in would be shown, and used, instead of what was typed.
StatusOr<json> PlainScalar(const std::string& s) {
  static const std::regex kInt(R"([-+]?[0-9]+)");
  static const std::regex kNumber(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (s == "true" || s == "True" || s == "TRUE") return json(true);
  if (s == "false" || s == "False" || s == "FALSE") return json(false);
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return json(nullptr);
  if (std::regex_match(s, kInt)) {
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == 0) return json(v);
    return InvalidArgument("whole number '" + s + "' is out of range (accepted: -9223372036854775808 to " +
                           "9223372036854775807)");
  }
  if (std::regex_match(s, kNumber)) {
    const double v = std::strtod(s.c_str(), nullptr);
    if (std::isfinite(v)) return json(v);
    return InvalidArgument("number '" + s + "' is out of range (accepted: finite, up to about 1.8e308)");
  }
  return json(s);
}

// What ToJson may still build. yaml-cpp shares an anchored node among its aliases, so a document of a few hundred
// bytes can stand for billions of values (a "billion laughs"), and an alias inside its own anchor for an endless
// one; only converting it expands them. Every value is counted each time it is converted, aliases included.
struct Budget {
  int values_left = kMaxConfigValues;
};

Status ToJson(const YAML::Node& node, const std::string& path, int depth, Budget* budget, ConfigFile* file, json* out) {
  if (--budget->values_left < 0) {
    return InvalidArgument(file->path + ": more than " + std::to_string(kMaxConfigValues) +
                           " values once its aliases are expanded (accepted: at most " +
                           std::to_string(kMaxConfigValues) + "; an alias counts its anchor's values each time)");
  }
  if (depth > kMaxConfigDepth) {
    return InvalidArgument(file->path + ":" + std::to_string(node.Mark().line + 1) + ": nested deeper than " +
                           std::to_string(kMaxConfigDepth) + " levels (accepted: at most " +
                           std::to_string(kMaxConfigDepth) + "; an alias inside its own anchor nests without end)");
  }
  file->lines[path] = node.Mark().line + 1;
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      *out = nullptr;
      return OkStatus();
    case YAML::NodeType::Scalar: {
      if (node.Tag() != "?") {
        *out = json(node.Scalar());
        return OkStatus();
      }
      auto value = PlainScalar(node.Scalar());
      if (!value.ok()) {
        return InvalidArgument(file->path + ":" + std::to_string(node.Mark().line + 1) + ": " + Printable(path) + ": " +
                               value.status().message());
      }
      *out = std::move(*value);
      return OkStatus();
    }
    case YAML::NodeType::Sequence: {
      *out = json::array();
      for (size_t i = 0; i < node.size(); ++i) {
        json v;
        RETURN_IF_ERROR(ToJson(node[i], path + "[" + std::to_string(i) + "]", depth + 1, budget, file, &v));
        out->push_back(std::move(v));
      }
      return OkStatus();
    }
    case YAML::NodeType::Map: {
      *out = json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          return InvalidArgument(file->path + ":" + std::to_string(kv.first.Mark().line + 1) +
                                 ": a key must be a plain name");
        }
        const std::string key = kv.first.Scalar();
        const std::string child = path.empty() ? key : path + "." + key;
        if (out->contains(key)) {
          return InvalidArgument(file->path + ":" + std::to_string(kv.first.Mark().line + 1) + ": " + Printable(child) +
                                 ": given twice");
        }
        json v;
        RETURN_IF_ERROR(ToJson(kv.second, child, depth + 1, budget, file, &v));
        (*out)[key] = std::move(v);
      }
      return OkStatus();
    }
  }
  return OkStatus();
}

Status TooLarge(const std::string& path, uint64_t bytes) {
  return InvalidArgument(path + ": " + std::to_string(bytes) +
                         " bytes, larger than a config may be (accepted: at most " + std::to_string(kMaxConfigBytes) +
                         " bytes, 1 MiB)");
}

bool HasType(const json& v, ValueType t) {
  switch (t) {
    case ValueType::kBool:
      return v.is_boolean();
    case ValueType::kInteger:
      return v.is_number_integer();
    case ValueType::kNumber:
      return v.is_number();
    case ValueType::kString:
      return v.is_string();
    case ValueType::kStringList:
      if (!v.is_array()) return false;
      for (const json& e : v) {
        if (!e.is_string() && !e.is_number()) return false;
      }
      return true;
    case ValueType::kObject:
      return v.is_object();
    case ValueType::kScalarOrList:
      return v.is_string() || v.is_number() || v.is_boolean() || HasType(v, ValueType::kStringList);
    case ValueType::kObjectList:
      if (!v.is_array()) return false;
      for (const json& e : v) {
        if (!e.is_object()) return false;
      }
      return true;
  }
  return false;
}

std::string TypeOf(const json& v) {
  if (v.is_null()) return "nothing";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_array()) return "a list";
  return "a mapping";
}

// The value itself after its type, for scalars (a user finds "got a string (\"fast\")" faster than the type alone).
std::string Shown(const json& v) {
  if (v.is_structured() || v.is_null()) return TypeOf(v);
  // A file's bytes need not be UTF-8: replace what is not rather than throw (the fuzz target found it).
  std::string text = Printable(v.dump(-1, ' ', false, json::error_handler_t::replace));
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return TypeOf(v) + " (" + text + ")";
}

std::string Names(const std::vector<KeySpec>& keys) {
  std::string s;
  for (const KeySpec& k : keys) s += (s.empty() ? "" : ", ") + k.name;
  return s;
}

void CheckObject(const ConfigFile& file, const json& object, const std::string& path, const std::vector<KeySpec>& keys,
                 std::vector<std::string>* problems) {
  auto where = [&file](const std::string& key) {
    return file.path + ":" + std::to_string(file.LineOf(key)) + ": " + Printable(key) + ": ";
  };
  for (const auto& item : object.items()) {
    const std::string name = item.key();
    const json& value = item.value();
    const std::string key = path.empty() ? name : path + "." + name;
    auto spec = std::find_if(keys.begin(), keys.end(), [&name](const KeySpec& k) { return k.name == name; });
    if (spec == keys.end()) {
      problems->push_back(where(key) + "unknown key (accepted: " + Names(keys) + ")");
      continue;
    }
    if (!HasType(value, spec->type)) {
      problems->push_back(where(key) + "expected " + Describe(spec->type) + ", got " + Shown(value) +
                          (spec->accepted.empty() ? "" : " (accepted: " + spec->accepted + ")"));
      continue;
    }
    if (spec->check) {
      std::string why = spec->check(value);
      if (!why.empty()) {
        problems->push_back(where(key) + why + (spec->accepted.empty() ? "" : " (accepted: " + spec->accepted + ")"));
      }
    }
    if (spec->type == ValueType::kObject) CheckObject(file, value, key, spec->children, problems);
    if (spec->type == ValueType::kObjectList) {
      for (size_t i = 0; i < value.size(); ++i) {
        CheckObject(file, value[i], key + "[" + std::to_string(i) + "]", spec->children, problems);
      }
    }
  }
  for (const KeySpec& k : keys) {
    if (k.required && !object.contains(k.name)) {
      const std::string key = path.empty() ? k.name : path + "." + k.name;
      problems->push_back(file.path + ":" + std::to_string(file.LineOf(path)) + ": " + Printable(key) + ": missing (" +
                          Describe(k.type) + (k.accepted.empty() ? "" : ": " + k.accepted) + ")");
    }
  }
}

}  // namespace

KeySpec Key(std::string name, ValueType type, std::string accepted) {
  KeySpec k;
  k.name = std::move(name);
  k.type = type;
  k.accepted = std::move(accepted);
  return k;
}

int ConfigFile::LineOf(const std::string& key) const {
  auto it = lines.find(key);
  return it == lines.end() ? 1 : it->second;
}

const char* Describe(ValueType type) {
  switch (type) {
    case ValueType::kBool:
      return "true or false";
    case ValueType::kInteger:
      return "a whole number";
    case ValueType::kNumber:
      return "a number";
    case ValueType::kString:
      return "a string";
    case ValueType::kStringList:
      return "a list";
    case ValueType::kObject:
      return "a mapping";
    case ValueType::kObjectList:
      return "a list of mappings";
    case ValueType::kScalarOrList:
      return "a value or a list of values";
  }
  return "?";
}

StatusOr<ConfigFile> ParseConfigText(const std::string& text, const std::string& path) {
  if (text.size() > kMaxConfigBytes) return TooLarge(path, text.size());
  ConfigFile file;
  file.path = path;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(path + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML or JSON: " + e.msg);
  }
  if (!root.IsMap()) {
    return InvalidArgument(path + ":1: expected a mapping of keys at the top (key: value lines, or a JSON object)");
  }
  Budget budget;
  RETURN_IF_ERROR(ToJson(root, "", 0, &budget, &file, &file.values));
  return file;
}

StatusOr<ConfigFile> ReadConfigFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return InvalidArgument(path + ": cannot read: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument(path + ": not a regular file (a config is a YAML or JSON file)");
  if (st.st_size > static_cast<off_t>(kMaxConfigBytes)) return TooLarge(path, static_cast<uint64_t>(st.st_size));
  std::ifstream in(path);
  if (!in) return InvalidArgument(path + ": cannot read: " + std::string(std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseConfigText(ss.str(), path);
}

std::vector<std::string> CheckConfig(const ConfigFile& file, const std::vector<KeySpec>& keys) {
  std::vector<std::string> problems;
  CheckObject(file, file.values, "", keys, &problems);
  return problems;
}

}  // namespace commbench::config
