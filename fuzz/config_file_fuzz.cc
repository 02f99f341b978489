// Config files (lib/config): any bytes as YAML or JSON. Parsing either fails with InvalidArgument naming the file
// and a line, or gives an object at the top whose every value has a line; checking it against keys of every type
// gives one line per problem, each naming the file.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lib/config/config_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commbench;
  using namespace commbench::config;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto file = ParseConfigText(text, "f.yaml");
  if (!file.ok()) {
    FUZZ_CHECK(file.status().code() == StatusCode::kInvalidArgument, "a bad file is InvalidArgument");
    FUZZ_CHECK(file.status().message().rfind("f.yaml:", 0) == 0, "names the file: " + file.status().message());
    return 0;
  }
  FUZZ_CHECK(file->values.is_object(), "an object at the top");
  KeySpec list = Key("items", ValueType::kObjectList);
  list.children = {Key("n", ValueType::kInteger), Key("s", ValueType::kString)};
  list.children[0].required = true;
  KeySpec object = Key("o", ValueType::kObject);
  object.children = {Key("b", ValueType::kBool), Key("x", ValueType::kNumber), Key("l", ValueType::kStringList)};
  for (const std::string& problem : CheckConfig(*file, {Key("a", ValueType::kString), list, object})) {
    FUZZ_CHECK(problem.rfind("f.yaml:", 0) == 0, "every problem names the file: " + problem);
    FUZZ_CHECK(problem.find('\n') == std::string::npos, "one line per problem: " + problem);
  }
  return 0;
}
