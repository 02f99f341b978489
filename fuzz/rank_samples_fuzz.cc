// The line a worker rank sends the driver per finished point (lib/result/rank_samples.h). Any line either fails
// with InvalidArgument or gives a record that writes back to one line and reads again to the same record.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lib/result/rank_samples.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commbench;
  const std::string line(reinterpret_cast<const char*>(data), size);
  auto record = result::ParseRankSamplesLine(line);
  if (!record.ok()) {
    FUZZ_CHECK(record.status().code() == StatusCode::kInvalidArgument, record.status().message());
    return 0;
  }
  const std::string written = result::RankSamplesToJsonLine(*record);
  FUZZ_CHECK(written.find('\n') == std::string::npos, "one line");
  auto again = result::ParseRankSamplesLine(written);
  FUZZ_CHECK(again.ok(), "what the reader accepted writes back readable: " + again.status().message());
  FUZZ_CHECK(result::RankSamplesToJsonLine(*again) == written, "write, read, write is stable");
  return 0;
}
