#include "lib/result/result_writer.h"

#include <fstream>
#include <map>

#include "lib/result/json_text.h"

namespace commbench::result {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

std::string SamplesSidecarPath(const std::string& result_path) {
  const std::string ext = ".json";
  const bool json =
      result_path.size() > ext.size() && result_path.compare(result_path.size() - ext.size(), ext.size(), ext) == 0;
  return (json ? result_path.substr(0, result_path.size() - ext.size()) : result_path) + ".samples.jsonl";
}

// The file is the header object's keys, "points": [ one point per line ], then the trailer object's keys: the
// same document ResultFileToJson builds, with the points written as they come.
StatusOr<std::unique_ptr<ResultFileWriter>> ResultFileWriter::Open(const std::string& path,
                                                                   const ResultHeader& header) {
  ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::Create(path));
  const std::string samples_path = SamplesSidecarPath(path);
  ASSIGN_OR_RETURN(AtomicFile samples, AtomicFile::Create(samples_path));
  std::string head = DumpJson(HeaderToJson(header), 1);
  head.resize(head.size() - 2);  // drop the closing "\n}"
  RETURN_IF_ERROR(file.Write(head + ",\n \"points\": ["));
  return std::unique_ptr<ResultFileWriter>(
      new ResultFileWriter(std::move(file), std::move(samples), BaseName(samples_path)));
}

Status ResultFileWriter::AppendPoint(PointResult* point) {
  RETURN_IF_ERROR(samples_.Write(SamplesLine(*point) + "\n"));
  point->samples_us.per_rank = {};         // frees the memory, unlike clear()
  point->samples_us.file = samples_name_;  // escaped: the --out name may be Latin-1
  RETURN_IF_ERROR(file_.Write((points_ == 0 ? "\n" : ",\n") + DumpJson(PointResultToJson(*point))));
  ++points_;
  return OkStatus();
}

Status ResultFileWriter::Finish(const ResultTrailer& trailer) {
  std::string tail = DumpJson(TrailerToJson(trailer), 1);
  RETURN_IF_ERROR(file_.Write((points_ == 0 ? "],\n" : "\n ],\n") + tail.substr(2) + "\n"));  // after the "{\n"
  RETURN_IF_ERROR(samples_.Commit());  // first: a result never names a sidecar that is not there
  return file_.Commit();
}

Status LoadSamples(const std::string& result_path, ResultFile* file) {
  std::map<std::string, PointResult*> by_id;
  std::string sidecar;
  for (PointResult& p : file->points) {
    if (p.samples_us.file.empty()) continue;
    by_id[p.id] = &p;
    sidecar = p.samples_us.file;
  }
  if (by_id.empty()) return OkStatus();
  // A recorded name that is not UTF-8 was escaped (lib/result/json_text.h): then the sidecar is found by the
  // name this writer gives it.
  std::string path = DirectoryOf(result_path) + sidecar;
  std::ifstream in(path);
  if (!in) {
    path = SamplesSidecarPath(result_path);
    in.open(path);
  }
  if (!in) return InvalidArgument("cannot read the samples file " + path);
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    std::string id;
    SampleSet samples;
    RETURN_IF_ERROR(ReadSamplesLine(line, path + ":" + std::to_string(n), &id, &samples));
    auto it = by_id.find(id);
    if (it == by_id.end()) return InvalidArgument(path + ":" + std::to_string(n) + ": no point '" + id + "'");
    it->second->samples_us.per_rank = std::move(samples.per_rank);
    it->second->samples_us.file.clear();
    by_id.erase(it);
  }
  if (!by_id.empty()) return InvalidArgument(path + ": no samples for point '" + by_id.begin()->first + "'");
  return OkStatus();
}

}  // namespace commbench::result
