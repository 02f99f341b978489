#include "lib/app/gate_calibrate.h"

#include <fstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "lib/app/gate_policy.h"
#include "lib/core/atomic_file.h"

namespace commbench::app {
namespace {

StatusOr<nlohmann::json> ReadJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound(path + ": cannot read");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return InvalidArgument(path + ": not a JSON object");
  return j;
}

std::shared_ptr<const gate::Calibration> Shared(gate::Calibration c) {
  return std::make_shared<const gate::Calibration>(std::move(c));
}

}  // namespace

StatusOr<gate::Calibration> CalibrateAa(const SequentialOutcome& run, double budget_s,
                                        const gate::LookSchedule& schedule, const gate::CompareOptions& compare) {
  for (const result::ResultFile* side : {&run.base, &run.now}) {
    if (side->trailer.status == result::RunStatus::kPartial) {
      return Unavailable("the A/A run failed: " + side->trailer.failure);
    }
  }
  // The A/A run itself ran every repeat; the gates that will use its figures look on the schedule and stop early.
  gate::LookSchedule judged = schedule;
  judged.stop_early = true;
  const gate::SequentialRun& rounds = *run.comparison.options.sequential_run;
  return gate::Calibrate(run.base, run.now, rounds.elapsed_s, rounds.rounds, budget_s, judged, compare);
}

Status StoreCalibration(const std::string& baseline, const gate::Calibration& c) {
  ASSIGN_OR_RETURN(nlohmann::json j, ReadJson(baseline));
  j[kCalibrationKey] = gate::CalibrationToJson(c);
  return WriteFileAtomically(baseline, j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Status KeepCalibratedBaseline(const result::ResultFile& run, const gate::Calibration* c,
                              const result::HostReference* host, const std::string& path) {
  const bool with_host = host && host->size() > 0;
  if (!c && !with_host) return KeepAsBaseline(run, path);
  nlohmann::json j = nlohmann::json::parse(BaselineText(run));
  if (c) j[kCalibrationKey] = gate::CalibrationToJson(*c);
  if (with_host) j[result::kHostReferenceKey] = result::HostReferenceToJson(*host);
  return WriteFileAtomically(path, j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

StatusOr<BaselineBlocks> LoadBaselineBlocks(const std::string& baseline) {
  ASSIGN_OR_RETURN(nlohmann::json base, ReadJson(baseline));
  BaselineBlocks blocks;
  if (base.contains(result::kHostReferenceKey)) {
    ASSIGN_OR_RETURN(blocks.host, result::HostReferenceFromJson(base[result::kHostReferenceKey], baseline));
  }
  if (base.contains(kCalibrationKey)) {
    ASSIGN_OR_RETURN(gate::Calibration c, gate::CalibrationFromJson(base[kCalibrationKey], baseline));
    blocks.calibration = Shared(std::move(c));
    return blocks;
  }
  const std::string path = gate::CalibrationPath(baseline);
  auto old = ReadJson(path);
  if (old.status().code() == StatusCode::kNotFound) return blocks;
  if (!old.ok()) return old.status();
  ASSIGN_OR_RETURN(gate::Calibration c, gate::CalibrationFromJson(*old, path));
  blocks.calibration = Shared(std::move(c));
  blocks.legacy_calibration = true;
  return blocks;
}

StatusOr<std::shared_ptr<const gate::Calibration>> LoadCalibration(const std::string& baseline, bool* legacy) {
  ASSIGN_OR_RETURN(BaselineBlocks blocks, LoadBaselineBlocks(baseline));
  if (legacy) *legacy = blocks.legacy_calibration;
  return blocks.calibration;
}

}  // namespace commbench::app
