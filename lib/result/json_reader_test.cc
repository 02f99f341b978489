#include "lib/result/json_reader.h"

#include <gtest/gtest.h>

namespace commbench::result {
namespace {

using nlohmann::json;

TEST(ObjectReaderTest, NamesTheFieldAndWhatWasWrong) {
  struct Case {
    json value;
    std::string error;
  };
  const Case cases[] = {
      {json{{"t", {{"p50", "fast"}}}}, "x.t.p50: expected a number, got a string"},
      {json{{"t", {{"p51", 1}}}}, "x.t.p50: missing"},
      {json{{"t", 3}}, "x.t: expected an object, got an integer"},
      {json{{"t", {{"p50", -1}}}}, "x.t.p50: invalid value -1"},
  };
  for (const Case& c : cases) {
    SchemaErrors errors;
    ObjectReader in(c.value, "x", &errors);
    in.Object("t").Number("p50", 0);
    ASSERT_FALSE(errors.ok());
    EXPECT_EQ(errors.status().message().rfind(c.error, 0), 0u) << errors.status().message();
  }
}

TEST(ObjectReaderTest, KeepsTheFirstError) {
  SchemaErrors errors;
  json j = {{"a", "x"}, {"b", "y"}};
  ObjectReader in(j, "", &errors);
  in.Int("a");
  in.Int("b");
  EXPECT_EQ(errors.status().message(), "a: expected an integer, got a string");
}

TEST(ObjectReaderTest, IntegersAcceptWholeNumbersOnly) {
  SchemaErrors errors;
  json j = {{"a", 4.0}, {"b", 4.5}, {"c", -3}};
  ObjectReader in(j, "", &errors);
  EXPECT_EQ(in.Int("a"), 4);
  EXPECT_TRUE(errors.ok());
  in.Int("b");
  EXPECT_EQ(errors.status().message(), "b: expected an integer, got 4.5");
  SchemaErrors more;
  ObjectReader again(j, "", &more);
  again.Int("c", 0);
  EXPECT_EQ(more.status().message(), "c: invalid value -3 (accepted: an integer >= 0)");
}

TEST(ObjectReaderTest, ArraysNameTheBadElement) {
  SchemaErrors errors;
  json j = {{"xs", {1, 2, "three"}}};
  ObjectReader in(j, "p", &errors);
  EXPECT_TRUE(in.Numbers("xs").empty());
  EXPECT_EQ(errors.status().message(), "p.xs[2]: expected a number, got a string");
}

// The first key given twice in one object, with its path; the same key in sibling objects is no duplicate.
TEST(DuplicateKeyTest, NamesTheFirstKeyGivenTwiceWithItsPath) {
  struct Case {
    std::string text, duplicate;
  };
  const Case cases[] = {
      {R"({"a": 1, "a": 2})", "a"},
      {R"({"points": [{"id": "x"}, {"id": "y", "t": {"p50": 1, "p50": 2}}]})", "points[1].t.p50"},
      {R"({"a": [1, [2, 3], {"b": 1}, {"c": 1, "c": 2}]})", "a[3].c"},
      {R"([{"k": 1}, {"k": 2}])", ""},
      {R"({"a": {"k": 1}, "b": {"k": 2}, "k": 3})", ""},
  };
  for (const Case& c : cases) {
    bool too_deep = false;
    std::string duplicate;
    EXPECT_FALSE(json::parse(c.text, DepthAndDuplicateCheck(&too_deep, &duplicate)).is_discarded());
    EXPECT_EQ(duplicate, c.duplicate) << c.text;
    EXPECT_FALSE(too_deep);
  }
  bool too_deep = false;
  std::string duplicate;
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_TRUE(json::parse(deep, DepthAndDuplicateCheck(&too_deep, &duplicate)).is_array());
  EXPECT_TRUE(too_deep);
}

}  // namespace
}  // namespace commbench::result
