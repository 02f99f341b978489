#include "tools/commbench/number_flags.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace commbench::cli {
namespace {

// One app with a flag of each numeric kind, in a subcommand as commbench's are; the strict checks attached.
struct Flags {
  int64_t iters = 0;
  int count = 0;
  uint64_t cap = 0;
  double rate = 0;
  std::vector<int64_t> list;
  std::string name;
};

// "" when the parse succeeds, else the error CLI11 raised.
std::string Parse(std::vector<std::string> args, Flags* f) {
  CLI::App app{"test"};
  CLI::App* sub = app.add_subcommand("sweep");
  sub->add_option("--iters", f->iters);
  sub->add_option("--count", f->count);
  sub->add_option("--cap", f->cap);
  sub->add_option("--rate", f->rate);
  sub->add_option("--list", f->list);
  sub->add_option("--name", f->name);
  RequireWellFormedNumbers(&app);
  args.insert(args.begin(), "sweep");
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a vector back to front
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

TEST(NumberFlagsTest, IntegersOutsideInt64AreRefusedNamingTheValueAsTyped) {
  Flags f;
  EXPECT_EQ(Parse({"--iters", "99999999999999999999"}, &f),
            "--iters: invalid value '99999999999999999999' (accepted: a decimal whole number from "
            "-9223372036854775808 to 9223372036854775807)");
  EXPECT_NE(Parse({"--iters", "-99999999999999999999"}, &f), "");
  EXPECT_EQ(Parse({"--iters", "9223372036854775807"}, &f), "");
  EXPECT_EQ(f.iters, INT64_MAX);
  EXPECT_EQ(Parse({"--iters", "-9223372036854775808"}, &f), "");
  EXPECT_EQ(f.iters, INT64_MIN);
}

TEST(NumberFlagsTest, IntegersAreDecimalOnly) {
  Flags f;
  EXPECT_EQ(Parse({"--iters", "010"}, &f), "");
  EXPECT_EQ(f.iters, 10);  // not octal 8
  for (const char* bad : {"0x10", "1e3", "12abc", "", "+5", " 5", "-", "-0", "1.0"}) {
    EXPECT_NE(Parse({"--iters", bad}, &f), "") << bad;
  }
}

TEST(NumberFlagsTest, NarrowerIntegersStillGetTheirOwnRangeCheck) {
  Flags f;
  EXPECT_EQ(Parse({"--count", "2147483647"}, &f), "");
  EXPECT_EQ(f.count, 2147483647);
  EXPECT_NE(Parse({"--count", "2147483648"}, &f), "");
}

TEST(NumberFlagsTest, UnsignedIntegersRefuseNegativeValues) {
  Flags f;
  EXPECT_EQ(Parse({"--cap", "-1"}, &f),
            "--cap: invalid value '-1' (accepted: a decimal whole number from 0 to 9223372036854775807)");
  EXPECT_EQ(Parse({"--cap", "2000"}, &f), "");
  EXPECT_EQ(f.cap, 2000u);
}

TEST(NumberFlagsTest, FloatingPointValuesMustBeFinite) {
  Flags f;
  EXPECT_EQ(Parse({"--rate", "1e999"}, &f),
            "--rate: invalid value '1e999' (accepted: a finite decimal number, e.g. 0.5 or 1e-3)");
  for (const char* bad : {"inf", "-inf", "nan", "0.5x", ""}) EXPECT_NE(Parse({"--rate", bad}, &f), "") << bad;
  EXPECT_EQ(Parse({"--rate", "0.004"}, &f), "");
  EXPECT_DOUBLE_EQ(f.rate, 0.004);
  EXPECT_EQ(Parse({"--rate", "1e-3"}, &f), "");
  EXPECT_DOUBLE_EQ(f.rate, 1e-3);
}

TEST(NumberFlagsTest, EveryElementOfAListIsChecked) {
  Flags f;
  EXPECT_EQ(Parse({"--list", "1", "--list", "2"}, &f), "");
  EXPECT_EQ(f.list, (std::vector<int64_t>{1, 2}));
  EXPECT_NE(Parse({"--list", "1", "--list", "99999999999999999999"}, &f), "");
}

TEST(NumberFlagsTest, TextFlagsAreLeftAlone) {
  Flags f;
  EXPECT_EQ(Parse({"--name", "99999999999999999999"}, &f), "");
  EXPECT_EQ(f.name, "99999999999999999999");
}

}  // namespace
}  // namespace commbench::cli
