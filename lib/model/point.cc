#include "lib/model/point.h"

namespace commbench {

std::string Point::Id() const {
  std::string id = backend + "/" + std::string(Name(op)) + "/" + algo + "/" + std::string(Name(dtype)) + "/" +
                   std::string(Name(reduce)) + "/g" + std::to_string(groups) + "/k" + std::to_string(group_size) + "/" +
                   std::to_string(bytes) + "B";
  id += in_place ? "/in" : "/out";
  id += "/sync=" + std::string(Name(sync));
  if (concurrency != Concurrency::kConcurrent) id += "/" + std::string(Name(concurrency));
  if (ranks_per_process != 1) id += "/rpp=" + std::to_string(ranks_per_process);
  if (pin != Pin::kNone) id += "/pin=" + std::string(Name(pin));
  if (!cpus.empty()) id += "/cpus=" + cpus;
  if (gpu_backend()) {
    id += "/stream=" + std::string(Name(gpu.stream)) + "/h2d=" + std::string(Name(gpu.h2d));
    if (gpu.graph) id += "/graph";
  }
  if (!phase.empty()) id += "/phase=" + phase;
  return id;
}

size_t Plan::point_count() const {
  size_t n = 0;
  for (const auto& l : launches) n += l.points.size();
  return n;
}

}  // namespace commbench
