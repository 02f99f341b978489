// `commbench report`'s path: LoadResultFile on a file (an in-memory one, so nothing is left on disk) and the
// HTML page built from what it read; and the embedding of arbitrary JSON in the page (RenderHtml of an untyped
// result, JsonForScript), which must never let the data close or change the <script> element.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lib/report/html.h"
#include "lib/result/json_reader.h"
#include "lib/result/result_file.h"

namespace {

// A file whose content is `data`, readable by path, gone when closed.
class MemoryFile {
 public:
  MemoryFile(const uint8_t* data, size_t size) : fd_(memfd_create("report_fuzz", 0)) {
    FUZZ_CHECK(fd_ >= 0, "memfd_create");
    for (size_t done = 0; done < size;) {
      const ssize_t n = write(fd_, data + done, size - done);
      FUZZ_CHECK(n > 0, "write to the memfd");
      done += static_cast<size_t>(n);
    }
  }
  ~MemoryFile() { close(fd_); }
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commbench;
  {
    const MemoryFile file(data, size);
    auto result = result::LoadResultFile(file.path());
    if (result.ok()) {
      auto html = report::RenderHtml(*result);
      FUZZ_CHECK(html.ok(), "a result the reader accepted renders: " + html.status().message());
    } else {
      FUZZ_CHECK(result.status().code() == StatusCode::kInvalidArgument, result.status().message());
    }
  }
  auto parsed = result::ParseJsonLine(std::string(reinterpret_cast<const char*>(data), size));
  if (!parsed.ok()) return 0;
  const nlohmann::json& j = *parsed;
  const std::string script = report::JsonForScript(j);
  FUZZ_CHECK(script.find_first_of("<>&") == std::string::npos, "no markup characters in the embedded JSON");
  const nlohmann::json back = nlohmann::json::parse(script, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(!back.is_discarded(), "the embedded JSON parses");
  auto html = report::RenderHtml(j);
  if (!html.ok()) FUZZ_CHECK(html.status().code() == StatusCode::kInvalidArgument, html.status().message());
  return 0;
}
