#include "lib/result/json_text.h"

#include <utility>

#include "lib/core/utf8.h"

namespace commbench {

void EscapeInvalidUtf8(nlohmann::json* j) {
  if (j->is_string()) {
    std::string& s = j->get_ref<std::string&>();
    if (!IsValidUtf8(s)) s = ValidUtf8OrEscaped(std::move(s));
  } else if (j->is_array()) {
    for (nlohmann::json& e : *j) EscapeInvalidUtf8(&e);
  } else if (j->is_object()) {
    bool keys_valid = true;
    for (auto it = j->begin(); it != j->end(); ++it) {
      keys_valid = keys_valid && IsValidUtf8(it.key());
      EscapeInvalidUtf8(&it.value());
    }
    if (keys_valid) return;
    nlohmann::json escaped = nlohmann::json::object();
    for (auto it = j->begin(); it != j->end(); ++it) escaped[ValidUtf8OrEscaped(it.key())] = std::move(it.value());
    *j = std::move(escaped);
  }
}

nlohmann::json WithValidUtf8(nlohmann::json j) {
  EscapeInvalidUtf8(&j);
  return j;
}

std::string DumpJson(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace commbench
