#include "lib/result/json_reader.h"

#include <climits>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <vector>

namespace commbench::result {
namespace {

using nlohmann::json;

const json& NullJson() {
  static const auto* null = new json();
  return *null;
}

}  // namespace

void SchemaErrors::Add(const std::string& path, const std::string& what) {
  if (first_.empty()) first_ = (path.empty() ? "(top level)" : path) + ": " + what;
}

Status SchemaErrors::status() const { return ok() ? OkStatus() : InvalidArgument(first_); }

std::string KindOf(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number";
    default:
      return "an unknown value";
  }
}

ObjectReader::ObjectReader(const json& value, std::string path, SchemaErrors* errors)
    : value_(&value), path_(std::move(path)), errors_(errors) {
  if (!value.is_object()) {
    errors_->Add(path_, "expected an object, got " + KindOf(value));
    value_ = &NullJson();
  }
}

std::string ObjectReader::PathOf(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

std::string ObjectReader::PathOf(const std::string& array_path, size_t index) {
  return array_path + "[" + std::to_string(index) + "]";
}

void ObjectReader::Error(const char* key, const std::string& what) { errors_->Add(PathOf(key), what); }

bool ObjectReader::Has(const char* key) const { return value_->is_object() && value_->contains(key); }

bool ObjectReader::IsNull(const char* key) const { return Has(key) && value_->at(key).is_null(); }

const json* ObjectReader::Field(const char* key) {
  if (!value_->is_object()) return nullptr;  // the object itself was already reported
  auto it = value_->find(key);
  if (it == value_->end()) {
    Error(key, "missing");
    return nullptr;
  }
  return &*it;
}

double ObjectReader::Number(const char* key, double min) {
  const json* v = Field(key);
  if (v == nullptr) return 0;
  if (!v->is_number()) {
    Error(key, "expected a number, got " + KindOf(*v));
    return 0;
  }
  const double d = v->get<double>();
  if (!std::isfinite(d) || d < min) {
    Error(key, "invalid value " + v->dump() + " (accepted: a number >= " + json(min).dump() + ")");
    return 0;
  }
  return d;
}

std::optional<double> ObjectReader::NullableNumber(const char* key) {
  if (IsNull(key)) return std::nullopt;
  return Number(key);
}

namespace {

// The value of an integer, or of a whole number written as a float by another tool (4.0), when it fits in
// int64_t; nullopt for fractions, non-numbers and values out of range (converting those would be undefined).
std::optional<int64_t> WholeNumber(const json& v) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_number_float()) return std::nullopt;
  const double d = v.get<double>();
  if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) >= 9e15) return std::nullopt;
  return static_cast<int64_t>(d);
}

}  // namespace

int64_t ObjectReader::Int(const char* key, int64_t min) {
  const json* v = Field(key);
  if (v == nullptr) return 0;
  const std::optional<int64_t> i = WholeNumber(*v);
  if (!i) {
    Error(key, v->is_number_unsigned() ? "invalid value " + v->dump() + " (too large)"
                                       : "expected an integer, got " + (v->is_number() ? v->dump() : KindOf(*v)));
    return 0;
  }
  if (*i < min) {
    Error(key, "invalid value " + v->dump() + " (accepted: an integer >= " + std::to_string(min) + ")");
    return 0;
  }
  return *i;
}

int ObjectReader::SmallInt(const char* key, int min) {
  const int64_t i = Int(key, min);
  if (i > INT_MAX) {
    Error(key, "invalid value " + std::to_string(i) + " (too large)");
    return 0;
  }
  return static_cast<int>(i);
}

uint64_t ObjectReader::Unsigned(const char* key) {
  const json* v = Field(key);
  if (v == nullptr) return 0;
  if (v->is_number_unsigned()) return v->get<uint64_t>();
  if (v->is_number_integer() && v->get<int64_t>() >= 0) return static_cast<uint64_t>(v->get<int64_t>());
  Error(key, "expected an integer >= 0, got " + (v->is_number() ? v->dump() : KindOf(*v)));
  return 0;
}

bool ObjectReader::Bool(const char* key) {
  const json* v = Field(key);
  if (v == nullptr) return false;
  if (!v->is_boolean()) {
    Error(key, "expected true or false, got " + KindOf(*v));
    return false;
  }
  return v->get<bool>();
}

std::string ObjectReader::String(const char* key) {
  const json* v = Field(key);
  if (v == nullptr) return "";
  if (!v->is_string()) {
    Error(key, "expected a string, got " + KindOf(*v));
    return "";
  }
  return v->get<std::string>();
}

std::vector<const json*> ObjectReader::Array(const char* key) {
  std::vector<const json*> out;
  const json* v = Field(key);
  if (v == nullptr) return out;
  if (!v->is_array()) {
    Error(key, "expected an array, got " + KindOf(*v));
    return out;
  }
  out.reserve(v->size());
  for (const json& e : *v) out.push_back(&e);
  return out;
}

std::vector<std::string> ObjectReader::Strings(const char* key) {
  std::vector<std::string> out;
  const auto items = Array(key);
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i]->is_string()) {
      errors_->Add(PathOf(PathOf(key), i), "expected a string, got " + KindOf(*items[i]));
      return {};
    }
    out.push_back(items[i]->get<std::string>());
  }
  return out;
}

std::vector<double> ObjectReader::Numbers(const char* key) {
  std::vector<double> out;
  const auto items = Array(key);
  out.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i]->is_number()) {
      errors_->Add(PathOf(PathOf(key), i), "expected a number, got " + KindOf(*items[i]));
      return {};
    }
    out.push_back(items[i]->get<double>());
  }
  return out;
}

std::vector<int64_t> ObjectReader::Ints(const char* key, int64_t min, int64_t max) {
  std::vector<int64_t> out;
  const auto items = Array(key);
  for (size_t i = 0; i < items.size(); ++i) {
    const json& v = *items[i];
    const std::optional<int64_t> value = WholeNumber(v);
    if (!value || *value < min || *value > max) {
      errors_->Add(PathOf(PathOf(key), i), "expected an integer >= " + std::to_string(min) +
                                               (max == INT64_MAX ? "" : " and <= " + std::to_string(max)) + ", got " +
                                               (v.is_number() ? v.dump() : KindOf(v)));
      return {};
    }
    out.push_back(*value);
  }
  return out;
}

ObjectReader ObjectReader::Object(const char* key) {
  const json* v = Field(key);
  // A missing object was reported already: the reader of null records nothing new (only the first error counts).
  return ObjectReader(v == nullptr ? NullJson() : *v, PathOf(key), errors_);
}

json::parser_callback_t DepthLimit(bool* too_deep) {
  return [too_deep](int depth, json::parse_event_t event, json&) {
    if (depth <= kMaxJsonDepth) return true;
    if (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) *too_deep = true;
    return false;
  };
}

namespace {

// Where the parser is, one entry per open object or array: its keys so far, the last key, the elements so far.
struct Level {
  bool object = false;
  std::set<std::string> keys;
  std::string key;
  size_t elements = 0;
};

std::string PathTo(const std::vector<Level>& levels, const std::string& key) {
  std::string path;
  for (size_t i = 0; i + 1 < levels.size(); ++i) {
    path +=
        levels[i].object ? (path.empty() ? "" : ".") + levels[i].key : "[" + std::to_string(levels[i].elements) + "]";
  }
  return path + (path.empty() ? "" : ".") + key;
}

}  // namespace

json::parser_callback_t DepthAndDuplicateCheck(bool* too_deep, std::string* duplicate) {
  auto depth_limit = DepthLimit(too_deep);
  auto levels = std::make_shared<std::vector<Level>>();
  return [depth_limit, levels, too_deep, duplicate](int depth, json::parse_event_t event, json& parsed) {
    const bool keep = depth_limit(depth, event, parsed);
    if (*too_deep) return keep;  // the whole document is refused: no need to follow it further
    using E = json::parse_event_t;
    auto& stack = *levels;
    if (event == E::object_start || event == E::array_start) {
      stack.push_back(Level{event == E::object_start, {}, {}, 0});
    } else if (event == E::key && !stack.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!stack.back().keys.insert(key).second && duplicate->empty()) *duplicate = PathTo(stack, key);
      stack.back().key = key;
    } else if (event == E::object_end || event == E::array_end) {
      if (!stack.empty()) stack.pop_back();
    }
    // An element of an array ends: a plain value at the array's depth + 1, or a closed object or array.
    if ((event == E::value || event == E::object_end || event == E::array_end) && !stack.empty() &&
        !stack.back().object && (event != E::value || depth == static_cast<int>(stack.size()))) {
      ++stack.back().elements;
    }
    return keep;
  };
}

StatusOr<json> ParseJsonLine(const std::string& text) {
  bool too_deep = false;
  json j = json::parse(text, DepthLimit(&too_deep), /*allow_exceptions=*/false);
  if (too_deep) return InvalidArgument("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  if (j.is_discarded()) return InvalidArgument("not valid JSON");
  return j;
}

}  // namespace commbench::result
