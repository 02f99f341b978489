// The result file's typed reader (lib/result/result_file.h: ReadResultFile, and through it the spec, point,
// finding, fit and environment readers). Any JSON either fails with InvalidArgument or gives a ResultFile whose
// serialisation reads again to the same file: writing it back, as text too, is stable. The JSON is parsed as
// LoadResultFile parses it (depth-limited).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lib/result/json_reader.h"
#include "lib/result/result_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commbench;
  auto j = result::ParseJsonLine(std::string(reinterpret_cast<const char*>(data), size));
  if (!j.ok()) return 0;
  auto file = result::ReadResultFile(*j);
  if (!file.ok()) {
    FUZZ_CHECK(file.status().code() == StatusCode::kInvalidArgument, file.status().message());
    return 0;
  }
  const nlohmann::json written = result::ResultFileToJson(*file);
  auto again = result::ReadResultFile(written);
  FUZZ_CHECK(again.ok(), "what the reader accepted writes back readable: " + again.status().message());
  const nlohmann::json rewritten = result::ResultFileToJson(*again);
  FUZZ_CHECK(rewritten == written, "write, read, write is stable");
  const std::string text = written.dump(1);
  FUZZ_CHECK(nlohmann::json::parse(text) == written, "the text form reads back the same");
  return 0;
}
