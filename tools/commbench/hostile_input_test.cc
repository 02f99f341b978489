// Hostile input files through the real binary (issue 32): a config that would expand without end, and result files
// whose numbers cannot be judged. Each is one error line and exit 2, at once, whatever command reads it.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/commbench/testing/cli_runner.h"

namespace commbench::testing {
namespace {

using nlohmann::json;

int Lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A reader that expanded the bomb would take gigabytes (3.8 GB before the fix): cap what the child may map, so
// that such a binary fails this test quickly instead of taking the machine's memory.
class HostileInputTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const rlimit cap{2ull << 30, 2ull << 30};
    ASSERT_EQ(setrlimit(RLIMIT_AS, &cap), 0);
  }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = cli_.dir() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  // Exit 2, one line on stderr holding `message`, nothing on stdout.
  void ExpectRefused(const std::vector<std::string>& args, const std::string& message) {
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    const CliResult r = cli_.Run(args);
    EXPECT_EQ(r.exit_code, 2) << cmd << r.err;
    EXPECT_EQ(Lines(r.err), 1) << cmd << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << cmd << "\n" << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }

  CliRunner cli_;
};

// Ten levels of nine aliases: 9^10 values in 400 bytes.
std::string BillionLaughs() {
  std::string text = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i < 10; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 9; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  return text;
}

const std::vector<std::vector<std::string>>& ConfigReaders() {
  static const std::vector<std::vector<std::string>> readers = {
      {"sweep", "--config"}, {"gate", "--config"}, {"accept", "--profile"}};
  return readers;
}

TEST_F(HostileInputTest, AYamlAliasBombIsRefusedByEveryConfigReader) {
  const std::string bomb = Write("bomb.yaml", BillionLaughs());
  for (std::vector<std::string> args : ConfigReaders()) {
    args.push_back(bomb);
    ExpectRefused(args, bomb + ": more than 100000 values once its aliases are expanded (accepted: at most 100000");
  }
}

TEST_F(HostileInputTest, AnAliasInsideItsOwnAnchorIsRefusedByEveryConfigReader) {
  const std::string cycle = Write("cycle.yaml", "groups: &x [*x]\n");
  for (std::vector<std::string> args : ConfigReaders()) {
    args.push_back(cycle);
    ExpectRefused(args, cycle + ":1: nested deeper than 64 levels (accepted: at most 64");
  }
}

TEST_F(HostileInputTest, AHugeOrDeepJsonConfigIsRefused) {
  const std::string deep = Write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  const std::string big_text = "{\"groups\": \"" + std::string(2 << 20, '1') + "\"}";
  const std::string big = Write("big.json", big_text);
  for (std::vector<std::string> args : ConfigReaders()) {
    std::vector<std::string> with_deep = args, with_big = args;
    with_deep.push_back(deep);
    ExpectRefused(with_deep, deep + ":");
    with_big.push_back(big);
    ExpectRefused(with_big, big + ": " + std::to_string(big_text.size()) +
                                " bytes, larger than a config may be (accepted: at most 1048576 bytes");
  }
}

// Result files of schema_version 3 built from a real sweep's file: every point with six repeats.
class CompareInputTest : public HostileInputTest {
 protected:
  void SetUp() override {
    std::ifstream in("reports/testdata/real_sweep_g1-4.json");
    doc_ = json::parse(in);
    doc_["schema_version"] = 3;
    for (json& p : doc_["points"]) {
      const double p50 = p["time_us"]["p50"].get<double>(), mean = p["time_us"]["mean"].get<double>();
      p["repeats"] = {{"n", 6}, {"p50_us", std::vector<double>(6, p50)}, {"mean_us", std::vector<double>(6, mean)}};
    }
    base_ = Write("base.json", doc_.dump());
    id_ = doc_["points"][1]["id"].get<std::string>();
  }

  json doc_;
  std::string base_, id_;
};

TEST_F(CompareInputTest, ANonPositiveMedianIsRefusedNotJudged) {
  json d = doc_;
  d["points"][1]["repeats"]["p50_us"] = {33.9, 34.1, -1.5, 34, 33.8, 34.2};
  const std::string neg = Write("neg.json", d.dump());
  ExpectRefused({"compare", base_, neg},
                neg + ": point " + id_ + ": repeats.p50_us[2] is -1.5 (accepted: a finite time > 0 us)");
  // gate reads its baseline the same way, before it runs anything.
  ExpectRefused({"gate", "--baseline", neg},
                neg + ": point " + id_ + ": repeats.p50_us[2] is -1.5 (accepted: a finite time > 0 us)");
  d["points"][1]["repeats"]["p50_us"][2] = 0;
  const std::string zero = Write("zero.json", d.dump());
  ExpectRefused({"compare", zero, base_}, zero + ": point " + id_ + ": repeats.p50_us[2] is 0 (accepted: ");
}

TEST_F(CompareInputTest, APointIdOrAKeyGivenTwiceIsRefused) {
  json d = doc_;
  d["points"].push_back(d["points"][1]);
  const std::string twice = Write("twice.json", d.dump());
  const size_t last = d["points"].size() - 1;
  ExpectRefused({"compare", base_, twice}, twice + ": point " + id_ + ": the id is given twice (points[1] and points[" +
                                               std::to_string(last) + "]");
  std::string text = doc_.dump();
  const size_t at = text.find("\"schema_version\":3");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"schema_version\":2,");
  const std::string key = Write("key.json", text);
  ExpectRefused({"compare", base_, key},
                key + ": schema_version: the key is given twice in one object (accepted: each key once)");
}

TEST_F(CompareInputTest, ANumberPastDoubleIsRefused) {
  std::string text = doc_.dump();
  const std::string p50 = "\"p50_us\":[";
  const size_t at = text.find(p50);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + p50.size(), "1e400,");
  const std::string inf = Write("inf.json", text);
  ExpectRefused({"compare", base_, inf}, inf + " is not valid JSON (number overflow parsing '1e400')");
}

}  // namespace
}  // namespace commbench::testing
