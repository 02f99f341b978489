// A line of the raw-samples sidecar (`<result>.samples.jsonl`, read by LoadSamples through ReadSamplesLine).
// Any line either fails with InvalidArgument naming the line's place, or gives samples that write back
// (SamplesLine, which rounds to the nanosecond) and read again to the same line.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lib/result/point_result.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commbench;
  const std::string line(reinterpret_cast<const char*>(data), size);
  result::PointResult point;
  const Status status = result::ReadSamplesLine(line, "r.samples.jsonl:1", &point.id, &point.samples_us);
  if (!status.ok()) {
    FUZZ_CHECK(status.code() == StatusCode::kInvalidArgument, status.message());
    FUZZ_CHECK(status.message().rfind("r.samples.jsonl:1", 0) == 0, "the error names the line: " + status.message());
    return 0;
  }
  const std::string written = result::SamplesLine(point);
  FUZZ_CHECK(written.find('\n') == std::string::npos, "one line");
  result::PointResult again;
  const Status again_status = result::ReadSamplesLine(written, "again", &again.id, &again.samples_us);
  FUZZ_CHECK(again_status.ok(), "what the reader accepted writes back readable: " + again_status.message());
  FUZZ_CHECK(again.id == point.id && again.samples_us.per_rank.size() == point.samples_us.per_rank.size(),
             "same point and ranks");
  FUZZ_CHECK(result::SamplesLine(again) == written, "write, read, write is stable");
  return 0;
}
