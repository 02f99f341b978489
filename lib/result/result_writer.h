// Writes a result file while the sweep runs: the header first, each point as it finishes (so that a long
// sweep's samples never have to be held in memory together), the diagnosis last. Everything goes to a
// temporary file beside the target that replaces it only in Finish(): a sweep that dies leaves the previous
// file as it was. The raw samples go to a sidecar beside it (SamplesSidecarPath), written the same way.
#pragma once

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/atomic_file.h"
#include "lib/result/result_file.h"

namespace commbench::result {

class ResultFileWriter {
 public:
  static StatusOr<std::unique_ptr<ResultFileWriter>> Open(const std::string& path, const ResultHeader& header);

  // One point per line: the file stays readable with line tools. The point's samples go to the sidecar and
  // leave memory; `point` names the sidecar afterwards, as the file does.
  Status AppendPoint(PointResult* point);
  Status Finish(const ResultTrailer& trailer);

  size_t points_written() const { return points_; }

 private:
  ResultFileWriter(AtomicFile file, AtomicFile samples, std::string samples_name)
      : file_(std::move(file)), samples_(std::move(samples)), samples_name_(std::move(samples_name)) {}

  AtomicFile file_;
  AtomicFile samples_;
  std::string samples_name_;  // as the result file names it: relative to the result's directory
  size_t points_ = 0;
};

// "r.json" -> "r.samples.jsonl" (any other name gets ".samples.jsonl" appended).
std::string SamplesSidecarPath(const std::string& result_path);

// Reads the sidecar a result names and puts every point's samples back (points whose samples are inline are
// left as they are). InvalidArgument names the sidecar and the problem.
Status LoadSamples(const std::string& result_path, ResultFile* file);

// A result's samples one point at a time, for exports that stream (the trace): memory holds one point's samples
// and an offset per point, whatever the sample count. The sidecar is checked as LoadSamples checks it.
class SamplesReader {
 public:
  // Indexes the sidecar `file` names (one pass over it); a file whose samples are all inline needs none.
  static StatusOr<std::unique_ptr<SamplesReader>> Open(const std::string& result_path, const ResultFile& file);
  ~SamplesReader();
  // The point's kept samples per rank: from the sidecar, or the point's own (inline) ones.
  StatusOr<std::vector<std::vector<double>>> Read(const PointResult& point);

 private:
  SamplesReader(std::string path, FILE* in) : path_(std::move(path)), in_(in) {}
  std::string path_;
  FILE* in_ = nullptr;
  std::map<std::string, long> offsets_;  // point id -> its line's offset in the sidecar
};

}  // namespace commbench::result
