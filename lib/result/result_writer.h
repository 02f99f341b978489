// Writes a result file while the sweep runs: the header first, each point as it finishes (so that a long
// sweep's samples never have to be held in memory together), the diagnosis last. Everything goes to a
// temporary file beside the target that replaces it only in Finish(): a sweep that dies leaves the previous
// file as it was.
#pragma once

#include <memory>
#include <string>

#include "lib/core/atomic_file.h"
#include "lib/result/result_file.h"

namespace commbench::result {

class ResultFileWriter {
 public:
  static StatusOr<std::unique_ptr<ResultFileWriter>> Open(const std::string& path, const ResultHeader& header);

  // One point per line: the file stays readable with line tools and a point's samples stay compact.
  Status AppendPoint(const PointResult& point);
  Status Finish(const ResultTrailer& trailer);

  size_t points_written() const { return points_; }

 private:
  explicit ResultFileWriter(AtomicFile file) : file_(std::move(file)) {}

  AtomicFile file_;
  size_t points_ = 0;
};

}  // namespace commbench::result
