#include "lib/config/config_file.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>

namespace commbench::config {
namespace {

using nlohmann::json;

std::vector<KeySpec> MakeKeys() {
  KeySpec iters = Key("iters", ValueType::kInteger, "0 or more");
  iters.check = [](const json& v) { return v.get<long long>() < 0 ? "negative" : ""; };
  KeySpec size = Key("size", ValueType::kString), busbw = Key("busbw_gbps", ValueType::kNumber);
  size.required = busbw.required = true;
  KeySpec floors = Key("floors", ValueType::kObjectList);
  floors.children = {size, busbw};
  return {Key("groups", ValueType::kString, "a range like 1..8"),
          Key("sizes", ValueType::kStringList, "sizes like 400, 64K"),
          iters,
          Key("target_ci", ValueType::kNumber),
          Key("explain", ValueType::kBool),
          floors};
}

const std::vector<KeySpec>& Keys() {
  static const std::vector<KeySpec> keys = MakeKeys();
  return keys;
}

TEST(ConfigFileTest, YamlScalarsReadAsTheyLook) {
  auto f = ParseConfigText(
      "groups: 1..8\nsizes: [400, 64K]\niters: 100\ntarget_ci: 0.05\nexplain: true\nname: \"100\"\nnothing:\n",
      "c.yaml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->values["groups"], "1..8");
  EXPECT_EQ(f->values["sizes"], json::array({400, "64K"}));
  EXPECT_EQ(f->values["iters"], 100);
  EXPECT_DOUBLE_EQ(f->values["target_ci"].get<double>(), 0.05);
  EXPECT_EQ(f->values["explain"], true);
  EXPECT_EQ(f->values["name"], "100");  // quoted: a string
  EXPECT_TRUE(f->values["nothing"].is_null());
  EXPECT_EQ(f->LineOf("target_ci"), 4);
  EXPECT_EQ(f->LineOf("sizes[1]"), 2);
}

TEST(ConfigFileTest, JsonIsYaml) {
  auto f =
      ParseConfigText(R"({"groups": "1..4", "iters": 5, "floors": [{"size": "1M", "busbw_gbps": 1.5}]})", "c.json");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(CheckConfig(*f, Keys()).empty());
  EXPECT_EQ(f->values["floors"][0]["busbw_gbps"], 1.5);
}

TEST(ConfigFileTest, EveryProblemOneLineWithItsLine) {
  auto f = ParseConfigText(
      "groups: 1..8\n"
      "sizez: [400]\n"
      "iters: -3\n"
      "explain: maybe\n"
      "floors:\n"
      "  - size: 1M\n"
      "    busbw: 3\n",
      "ci.yaml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  std::vector<std::string> p = CheckConfig(*f, Keys());
  ASSERT_EQ(p.size(), 5u) << ::testing::PrintToString(p);
  EXPECT_EQ(p[0], "ci.yaml:4: explain: expected true or false, got a string (\"maybe\")");
  EXPECT_EQ(p[1], "ci.yaml:7: floors[0].busbw: unknown key (accepted: size, busbw_gbps)");
  EXPECT_EQ(p[2], "ci.yaml:6: floors[0].busbw_gbps: missing (a number)");
  EXPECT_EQ(p[3], "ci.yaml:3: iters: negative (accepted: 0 or more)");
  EXPECT_EQ(p[4], "ci.yaml:2: sizez: unknown key (accepted: groups, sizes, iters, target_ci, explain, floors)");
}

// A value that is not UTF-8 is shown with the bad bytes replaced, never a crash (found by config_file_fuzz).
TEST(ConfigFileTest, AValueThatIsNotUtf8IsShownNotThrown) {
  auto f = ParseConfigText("explain: 1.5\x9a\n", "ci.yaml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  std::vector<std::string> p = CheckConfig(*f, Keys());
  ASSERT_EQ(p.size(), 1u) << ::testing::PrintToString(p);
  EXPECT_EQ(p[0].rfind("ci.yaml:1: explain: expected true or false, got a string (", 0), 0u) << p[0];
}

TEST(ConfigFileTest, SyntaxAndShapeErrorsNameFileAndLine) {
  auto bad = ParseConfigText("groups: 1..8\nsizes: [400, 64K\n", "x.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message().rfind("x.yaml:", 0), 0u) << bad.status().message();
  EXPECT_NE(bad.status().message().find("not valid YAML or JSON"), std::string::npos);
  auto list = ParseConfigText("- a\n- b\n", "l.yaml");
  EXPECT_NE(list.status().message().find("l.yaml:1: expected a mapping"), std::string::npos);
  auto twice = ParseConfigText("iters: 1\niters: 2\n", "t.yaml");
  EXPECT_NE(twice.status().message().find("t.yaml:2: iters: given twice"), std::string::npos)
      << twice.status().message();
}

TEST(ConfigFileTest, NumeralsPastTheirRangeAreRefusedAsTyped) {
  auto big = ParseConfigText("groups: 1..8\niters: 99999999999999999999\n", "n.yaml");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().message(),
            "n.yaml:2: iters: whole number '99999999999999999999' is out of range (accepted: "
            "-9223372036854775808 to 9223372036854775807)");
  auto inf = ParseConfigText("gate:\n  min-effect: 1e999\n", "f.json");
  ASSERT_FALSE(inf.ok());
  EXPECT_EQ(inf.status().message(),
            "f.json:2: gate.min-effect: number '1e999' is out of range (accepted: finite, up to about 1.8e308)");
  auto edge = ParseConfigText("a: 9223372036854775807\nb: -9223372036854775808\nc: 1.5e308\nd: 1e-400\n", "e.yaml");
  ASSERT_TRUE(edge.ok()) << edge.status().message();
  EXPECT_EQ(edge->values["a"], INT64_MAX);
  EXPECT_EQ(edge->values["b"], INT64_MIN);
  EXPECT_EQ(edge->values["c"], 1.5e308);
  EXPECT_EQ(edge->values["d"], 0.0);  // below the smallest double: read as 0, as every YAML reader does
}

// "Billion laughs": ten levels of nine aliases each stand for 9^10 values in a few hundred bytes.
std::string AliasBomb() {
  std::string text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 10; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  return text;
}

TEST(ConfigFileTest, AnAliasBombIsRefusedByItsValueCount) {
  auto bomb = ParseConfigText(AliasBomb(), "bomb.yaml");
  ASSERT_FALSE(bomb.ok());
  EXPECT_EQ(bomb.status().message(),
            "bomb.yaml: more than 100000 values once its aliases are expanded (accepted: at most 100000; an alias "
            "counts its anchor's values each time)");
}

TEST(ConfigFileTest, AliasesWithinTheBudgetStillRead) {
  auto f = ParseConfigText("base: &b {iters: 5, sizes: [400, 64K]}\ncopy: *b\n", "a.yaml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->values["copy"], f->values["base"]);
  EXPECT_EQ(f->values["copy"]["sizes"][1], "64K");
  // Exactly the budget reads; one value more does not (the top-level mapping and its list count too).
  std::string list = "l: [";
  for (int i = 0; i < kMaxConfigValues - 2; ++i) list += i ? ",1" : "1";
  EXPECT_TRUE(ParseConfigText(list + "]\n", "max.yaml").ok());
  EXPECT_FALSE(ParseConfigText(list + ",1]\n", "over.yaml").ok());
}

TEST(ConfigFileTest, AnAliasInsideItsOwnAnchorIsRefusedByDepth) {
  auto cycle = ParseConfigText("a: &x [*x]\n", "cycle.yaml");
  ASSERT_FALSE(cycle.ok());
  EXPECT_EQ(cycle.status().message(),
            "cycle.yaml:1: nested deeper than 64 levels (accepted: at most 64; an alias "
            "inside its own anchor nests without end)");
  auto map = ParseConfigText("a: &x {b: *x}\n", "cycle.yaml");
  EXPECT_NE(map.status().message().find("nested deeper than 64 levels"), std::string::npos) << map.status().message();
}

TEST(ConfigFileTest, DeepNestingIsRefusedNotACrash) {
  // 100000 levels: yaml-cpp's parser stops at its own depth guard; a file under it stops at ours.
  auto deep = ParseConfigText("{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}", "deep.json");
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().message().rfind("deep.json:", 0), 0u) << deep.status().message();
  auto nested = ParseConfigText("{\"a\": " + std::string(100, '[') + std::string(100, ']') + "}", "n.json");
  EXPECT_NE(nested.status().message().find("nested deeper than 64 levels"), std::string::npos)
      << nested.status().message();
}

TEST(ConfigFileTest, AFileOverOneMebibyteIsRefusedBeforeParsing) {
  const std::string big = "a: \"" + std::string(kMaxConfigBytes, 'x') + "\"\n";
  EXPECT_EQ(ParseConfigText(big, "big.yaml").status().message(),
            "big.yaml: " + std::to_string(big.size()) +
                " bytes, larger than a config may be (accepted: at most 1048576 bytes, 1 MiB)");
  char name[] = "/tmp/commbench-config-test-XXXXXX";
  int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(name) << big;
  auto f = ReadConfigFile(name);
  std::remove(name);
  EXPECT_NE(f.status().message().find("bytes, larger than a config may be"), std::string::npos) << f.status().message();
}

TEST(ConfigFileTest, ReadsFilesAndRefusesWhatIsNotOne) {
  char name[] = "/tmp/commbench-config-test-XXXXXX";
  int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(name) << "iters: 7\n";
  auto f = ReadConfigFile(name);
  std::remove(name);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->values["iters"], 7);
  EXPECT_NE(ReadConfigFile("/nonexistent/c.yaml").status().message().find("cannot read"), std::string::npos);
  EXPECT_NE(ReadConfigFile("/tmp").status().message().find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace commbench::config
