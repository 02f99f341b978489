// The sweep's flag values -> SweepSpec (tools/commbench/sweep_flags.h: ToSpec, with the list parsers of
// lib/core/ranges.h and the axis names of lib/core/axes.h). The input is one flag value per line, in the order
// of kFlags. A spec ToSpec accepts passes ValidateSpec, and the form the result file records (SpecToJson) reads
// back (ReadSpec) to the same record.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lib/model/point_json.h"
#include "lib/result/spec_reader.h"
#include "lib/sweep/planner.h"
#include "tools/commbench/sweep_flags.h"

namespace {

using commbench::cli::SweepFlags;

constexpr std::string SweepFlags::*kFlags[] = {
    &SweepFlags::backends, &SweepFlags::ops,      &SweepFlags::algos,         &SweepFlags::dtypes,
    &SweepFlags::reduces,  &SweepFlags::sizes,    &SweepFlags::groups,        &SweepFlags::group_sizes,
    &SweepFlags::in_place, &SweepFlags::syncs,    &SweepFlags::concurrencies, &SweepFlags::ranks_per_process,
    &SweepFlags::pins,     &SweepFlags::streams,  &SweepFlags::h2ds,          &SweepFlags::h2d_bytes,
    &SweepFlags::graphs,   &SweepFlags::launcher,
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace commbench;
  const std::string text(reinterpret_cast<const char*>(data), size);
  SweepFlags flags;  // lines the input lacks keep the defaults
  size_t start = 0, field = 0;
  const size_t kFields = sizeof(kFlags) / sizeof(kFlags[0]);
  while (start <= text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string value = text.substr(start, end - start);
    if (field < kFields) {
      flags.*kFlags[field] = value;
    } else {
      flags.cpus.push_back(value);  // the remaining lines are --cpus values (repeatable)
    }
    ++field;
    start = end + 1;
  }
  auto spec = cli::ToSpec(flags);
  if (!spec.ok()) {
    FUZZ_CHECK(spec.status().code() == StatusCode::kInvalidArgument || spec.status().code() == StatusCode::kUnavailable,
               spec.status().message());
    return 0;
  }
  FUZZ_CHECK(ValidateSpec(*spec).ok(), "ToSpec returns only valid specs");
  const nlohmann::json written = SpecToJson(*spec);
  auto again = result::ReadSpec(written);
  FUZZ_CHECK(again.ok(), "the recorded spec reads back: " + again.status().message());
  FUZZ_CHECK(SpecToJson(*again) == written, "and writes the same record");
  return 0;
}
