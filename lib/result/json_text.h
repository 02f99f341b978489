// JSON that can always be written. nlohmann::json throws (type_error 316) when it dumps a string that is not
// UTF-8, and a variable such as NCCL_DEBUG=$'\xff', a Latin-1 file name or a host name byte would then lose a
// whole measured run at its last step. Strings are escaped where they enter a document (ValidUtf8OrEscaped,
// lib/core/utf8.h); DumpJson is the second line of defence at every writer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace commbench {

// Every string in `j`, object keys included, as ValidUtf8OrEscaped: a byte that is not UTF-8 reads `\xNN`.
void EscapeInvalidUtf8(nlohmann::json* j);
nlohmann::json WithValidUtf8(nlohmann::json j);

// j.dump(indent) that never throws on bad UTF-8: what escaped EscapeInvalidUtf8 becomes U+FFFD.
std::string DumpJson(const nlohmann::json& j, int indent = -1);

}  // namespace commbench
