#include "lib/result/result_writer.h"

namespace commbench::result {

// The file is the header object's keys, "points": [ one point per line ], then the trailer object's keys: the
// same document ResultFileToJson builds, with the points written as they come.
StatusOr<std::unique_ptr<ResultFileWriter>> ResultFileWriter::Open(const std::string& path,
                                                                   const ResultHeader& header) {
  ASSIGN_OR_RETURN(AtomicFile file, AtomicFile::Create(path));
  std::string head = HeaderToJson(header).dump(1);
  head.resize(head.size() - 2);  // drop the closing "\n}"
  RETURN_IF_ERROR(file.Write(head + ",\n \"points\": ["));
  return std::unique_ptr<ResultFileWriter>(new ResultFileWriter(std::move(file)));
}

Status ResultFileWriter::AppendPoint(const PointResult& point) {
  RETURN_IF_ERROR(file_.Write((points_ == 0 ? "\n" : ",\n") + PointResultToJson(point).dump()));
  ++points_;
  return OkStatus();
}

Status ResultFileWriter::Finish(const ResultTrailer& trailer) {
  std::string tail = TrailerToJson(trailer).dump(1);
  RETURN_IF_ERROR(file_.Write((points_ == 0 ? "],\n" : "\n ],\n") + tail.substr(2) + "\n"));  // after the "{\n"
  return file_.Commit();
}

}  // namespace commbench::result
