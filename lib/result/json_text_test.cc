#include "lib/result/json_text.h"

#include <gtest/gtest.h>

#include <string>

namespace commbench {
namespace {

using nlohmann::json;

TEST(JsonTextTest, EscapesStringsAndKeysAtEveryDepth) {
  json j = {{"host", "h\xff"},
            {"variables", {{"NCCL_DEBUG", "\xff"}, {"NCCL_\xfe", "ok"}}},
            {"list", {"caf\xe9", 1, nullptr, {{"deep", "\xc3"}}}},
            {"fine", "caf\xc3\xa9"}};
  EscapeInvalidUtf8(&j);
  EXPECT_EQ(j["host"], "h\\xff");
  EXPECT_EQ(j["variables"]["NCCL_DEBUG"], "\\xff");
  EXPECT_EQ(j["variables"]["NCCL_\\xfe"], "ok");
  EXPECT_EQ(j["list"][0], "caf\\xe9");
  EXPECT_EQ(j["list"][3]["deep"], "\\xc3");
  EXPECT_EQ(j["fine"], "caf\xc3\xa9");
  EXPECT_NO_THROW(j.dump());
  EXPECT_EQ(json::parse(j.dump()), j);
}

TEST(JsonTextTest, EveryHighByteSurvivesADump) {
  for (int b = 0x80; b <= 0xff; ++b) {
    const std::string s(1, static_cast<char>(b));
    EXPECT_THROW(json(s).dump(), json::type_error) << b;  // what this guards against
    EXPECT_NO_THROW(DumpJson(json(s)));
    EXPECT_NO_THROW(WithValidUtf8(json{{s, s}}).dump());
  }
}

TEST(JsonTextTest, DumpJsonIndents) { EXPECT_EQ(DumpJson(json{{"a", 1}}, 1), "{\n \"a\": 1\n}"); }

}  // namespace
}  // namespace commbench
