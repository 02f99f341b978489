#include "lib/core/ranges.h"

#include <gtest/gtest.h>

namespace commbench {
namespace {

using V = std::vector<int64_t>;
using U = std::vector<uint64_t>;
constexpr IntBounds kGroups{1, 64};

TEST(ParseIntListTest, RangesListsAndSteps) {
  EXPECT_EQ(*ParseIntList("1..8", "--groups", kGroups), (V{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(*ParseIntList("1,2,4,8", "--groups", kGroups), (V{1, 2, 4, 8}));
  EXPECT_EQ(*ParseIntList("1..16:x2", "--groups", kGroups), (V{1, 2, 4, 8, 16}));
  EXPECT_EQ(*ParseIntList("2..8:+3", "--groups", kGroups), (V{2, 5, 8}));
  EXPECT_EQ(*ParseIntList(" 4, 1..2 ,4", "--groups", kGroups), (V{1, 2, 4}));
  EXPECT_EQ(*ParseIntList("3..3", "--groups", kGroups), (V{3}));
}

TEST(ParseIntListTest, ZeroIsOutOfRange) {
  auto r = ParseIntList("0..2", "--groups", kGroups);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "--groups: value 0 in '0..2' is out of range (accepted: 1..64)");
}

TEST(ParseIntListTest, DescendingRangeIsEmpty) {
  auto r = ParseIntList("3..1", "--groups", kGroups);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "--groups: range '3..1' is empty: its end is below its start (write A..B with A <= B)");
}

TEST(ParseIntListTest, Malformed) {
  for (const char* bad :
       {"", "a", "1..", "..3", "1,,2", "1..4:y2", "1..4:x1", "1..4:+0", "1.5", "1:x2", "99999999999999999999"}) {
    auto r = ParseIntList(bad, "--groups", kGroups);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
      EXPECT_NE(r.status().message().find("--groups"), std::string::npos) << r.status().message();
    }
  }
  EXPECT_FALSE(ParseIntList("65", "--groups", kGroups).ok());
}

TEST(ParseByteSizeTest, Suffixes) {
  EXPECT_EQ(*ParseByteSize("400", "--sizes"), 400u);
  EXPECT_EQ(*ParseByteSize("4K", "--sizes"), 4096u);
  EXPECT_EQ(*ParseByteSize("4k", "--sizes"), 4096u);
  EXPECT_EQ(*ParseByteSize("64M", "--sizes"), 64u << 20);
  EXPECT_EQ(*ParseByteSize("1GiB", "--sizes"), 1u << 30);
  EXPECT_EQ(*ParseByteSize("8B", "--sizes"), 8u);
  EXPECT_EQ(*ParseByteSize("2KB", "--sizes"), 2048u);
}

TEST(ParseByteSizeTest, BadSuffix) {
  auto r = ParseByteSize("1X", "--sizes");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "--sizes: invalid value '1X' (accepted: bytes with optional suffix K, M, G, T (powers of 1024), e.g. "
            "400, 4K, 1M; ranges A..B[:xK|:+S]; comma lists)");
  for (const char* bad : {"", "K", "1.5K", "-1", "1KK", "1 K B", "99999999999G"}) {
    EXPECT_FALSE(ParseByteSize(bad, "--sizes").ok()) << bad;
  }
}

TEST(ParseSizeListTest, RangesAndLists) {
  EXPECT_EQ(ParseSizeList("4..64M:x2", "--sizes", 1ull << 32)->size(), 25u);
  EXPECT_EQ(*ParseSizeList("4..64:x4", "--sizes", 1ull << 32), (U{4, 16, 64}));
  EXPECT_EQ(*ParseSizeList("400,4K,1M", "--sizes", 1ull << 32), (U{400, 4096, 1u << 20}));
  EXPECT_EQ(*ParseSizeList("1K..4K:+1K", "--sizes", 1ull << 32), (U{1024, 2048, 3072, 4096}));
  EXPECT_EQ(*ParseSizeList("8..32", "--sizes", 1ull << 32), (U{8, 16, 32}));
  EXPECT_FALSE(ParseSizeList("1X", "--sizes", 1ull << 32).ok());
  EXPECT_FALSE(ParseSizeList("64M..4", "--sizes", 1ull << 32).ok());
  auto too_big = ParseSizeList("8G", "--sizes", 1ull << 32);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("out of range"), std::string::npos);
}

// Found by fuzz/ranges_fuzz: a step that overflows the value type, and a range too long to hold.
TEST(ParseIntListTest, HugeStepsStopAtTheEnd) {
  const IntBounds any{INT64_MIN, INT64_MAX};
  EXPECT_EQ(*ParseIntList("2..4000:x9223372036854775807", "--groups", any), (V{2}));
  EXPECT_EQ(*ParseIntList("3..9223372036854775807:+9223372036854775807", "--groups", any), (V{3}));
  EXPECT_EQ(*ParseIntList("-5..-1:+9223372036854775807", "--groups", any), (V{-5}));
  EXPECT_EQ(*ParseSizeList("1..8:+9999999999999999999", "--sizes", UINT64_MAX), (U{1}));
  EXPECT_EQ(ParseSizeList("1..16G:x2", "--sizes", UINT64_MAX)->back(), 16ull << 30);
}

TEST(ParseSizeListTest, TooManyValuesIsAnError) {
  auto r = ParseSizeList("0..16G:+1", "--sizes", 16ull << 30);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("more than 100000 values"), std::string::npos) << r.status().message();
  EXPECT_EQ(ParseSizeList("1..100000:+1", "--sizes", 16ull << 30)->size(), kMaxListValues);
}

// FormatBytes' exact forms read back (it writes T for tebibytes).
TEST(ParseByteSizeTest, FormatBytesReadsBack) {
  for (uint64_t v : {0ull, 1023ull, 4096ull, 1ull << 40, 3ull << 50, 16777215ull << 40}) {
    EXPECT_EQ(*ParseByteSize(FormatBytes(v), "--sizes"), v) << FormatBytes(v);
  }
}

TEST(ParseNameListTest, TrimsAndRejectsEmpty) {
  EXPECT_EQ(*ParseNameList("allreduce, allgather,allreduce", "--ops"),
            (std::vector<std::string>{"allreduce", "allgather"}));
  EXPECT_FALSE(ParseNameList("a,,b", "--ops").ok());
  EXPECT_FALSE(ParseNameList("", "--ops").ok());
}

TEST(FormatTest, BytesAndCpus) {
  EXPECT_EQ(FormatBytes(400), "400");
  EXPECT_EQ(FormatBytes(4096), "4K");
  EXPECT_EQ(FormatBytes(64u << 20), "64M");
  EXPECT_EQ(FormatBytes(1536), "1.5K");
  EXPECT_EQ(FormatCpuList({3, 0, 1, 2, 5}), "0-3,5");
  EXPECT_EQ(*ParseCpuList("0-2,5", "--cpus"), (std::vector<int>{0, 1, 2, 5}));
  EXPECT_FALSE(ParseCpuList("2-1", "--cpus").ok());
  EXPECT_FALSE(ParseCpuList("x", "--cpus").ok());
}

}  // namespace
}  // namespace commbench
