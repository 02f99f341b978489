// The list flags' parsers (lib/core/ranges.h): --sizes, --groups and the other integer axes, --cpus, name lists.
// The first byte picks the parser, the rest is the flag's value. Each either fails with InvalidArgument or
// returns what its contract says: sorted, unique, within bounds, a bounded number of values; a CPU list and a
// byte count written back (FormatCpuList, FormatBytes) read again to the same value.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.h"
#include "lib/core/ranges.h"

namespace commbench {
namespace {

template <typename T>
void CheckSortedUniqueWithin(const std::vector<T>& values, T min, T max) {
  FUZZ_CHECK(!values.empty(), "a parsed list is never empty");
  FUZZ_CHECK(values.size() <= kMaxListValues, "at most kMaxListValues values");
  for (size_t i = 0; i < values.size(); ++i) {
    FUZZ_CHECK(values[i] >= min && values[i] <= max, "value " + std::to_string(values[i]) + " out of bounds");
    if (i > 0) FUZZ_CHECK(values[i - 1] < values[i], "sorted and unique");
  }
}

void CheckStatus(const Status& status) {
  FUZZ_CHECK(status.code() == StatusCode::kInvalidArgument, "a bad flag value is InvalidArgument");
  FUZZ_CHECK(status.message().rfind("--flag", 0) == 0, "the message names the flag: " + status.message());
}

}  // namespace
}  // namespace commbench

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commbench;
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 5) {
    case 0: {  // the integer axes; --groups' bounds, and bounds that let negative and huge values through
      const IntBounds bounds = data[0] & 8 ? IntBounds{1, 4096} : IntBounds{INT64_MIN, INT64_MAX};
      auto v = ParseIntList(text, "--flag", bounds);
      if (v.ok())
        CheckSortedUniqueWithin<int64_t>(*v, bounds.min, bounds.max);
      else
        CheckStatus(v.status());
      break;
    }
    case 1: {
      const uint64_t max = data[0] & 8 ? uint64_t{16} << 30 : UINT64_MAX;
      auto v = ParseSizeList(text, "--flag", max);
      if (v.ok())
        CheckSortedUniqueWithin<uint64_t>(*v, 0, max);
      else
        CheckStatus(v.status());
      break;
    }
    case 2: {
      auto v = ParseByteSize(text, "--flag");
      if (!v.ok()) {
        CheckStatus(v.status());
        break;
      }
      const std::string written = FormatBytes(*v);
      if (written.find('.') == std::string::npos) {  // exact forms only: "1.5M" is rounded for display
        auto again = ParseByteSize(written, "--flag");
        FUZZ_CHECK(again.ok() && *again == *v,
                   "FormatBytes(" + std::to_string(*v) + ") = " + written + " reads back as the same size");
      }
      break;
    }
    case 3: {
      auto v = ParseCpuList(text, "--flag");
      if (!v.ok()) {
        CheckStatus(v.status());
        break;
      }
      CheckSortedUniqueWithin<int>(*v, 0, 4095);
      const std::string written = FormatCpuList(*v);
      auto again = ParseCpuList(written, "--flag");
      FUZZ_CHECK(again.ok() && *again == *v, "FormatCpuList writes " + written + ", which reads back the same");
      break;
    }
    default: {
      auto v = ParseNameList(text, "--flag");
      if (!v.ok()) {
        CheckStatus(v.status());
        break;
      }
      for (const std::string& name : *v) FUZZ_CHECK(!name.empty(), "no empty names");
      break;
    }
  }
  return 0;
}
