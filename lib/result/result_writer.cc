#include "lib/result/result_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "lib/core/data_file.h"
#include "lib/core/printable.h"
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
  // The sidecar's name comes from the file: only a file beside it, never a path that leaves its directory.
  if (sidecar.find('/') != std::string::npos || sidecar == "." || sidecar == "..") {
    return InvalidArgument(result_path + ": samples file '" + Printable(sidecar) +
                           "' (accepted: the name of a file beside the result, as sweep writes it)");
  }
  std::string path = DirectoryOf(result_path) + sidecar;
  // A recorded name that is not UTF-8 was escaped (lib/result/json_text.h): then the sidecar is found by the
  // name this writer gives it.
  if (struct stat st; lstat(path.c_str(), &st) != 0) path = SamplesSidecarPath(result_path);
  StatusOr<std::string> text = ReadDataFile(path, kMaxResultFileBytes, "samples file");
  if (!text.ok()) return InvalidArgument("cannot read the samples file " + path + ": " + text.status().message());
  std::istringstream in(*text);
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

namespace {

// One line of `in` (without its newline) into `line`; false at the end.
bool NextLine(FILE* in, std::string* line) {
  line->clear();
  for (int c; (c = std::fgetc(in)) != EOF;) {
    if (c == '\n') return true;
    line->push_back(static_cast<char>(c));
  }
  return !line->empty();
}

}  // namespace

StatusOr<std::unique_ptr<SamplesReader>> SamplesReader::Open(const std::string& result_path, const ResultFile& file) {
  std::string sidecar;
  for (const PointResult& p : file.points) {
    if (!p.samples_us.file.empty()) sidecar = p.samples_us.file;
  }
  if (sidecar.empty()) return std::unique_ptr<SamplesReader>(new SamplesReader("", nullptr));
  if (sidecar.find('/') != std::string::npos || sidecar == "." || sidecar == "..") {
    return InvalidArgument(result_path + ": samples file '" + Printable(sidecar) +
                           "' (accepted: the name of a file beside the result, as sweep writes it)");
  }
  std::string path = DirectoryOf(result_path) + sidecar;
  if (struct stat st; lstat(path.c_str(), &st) != 0) path = SamplesSidecarPath(result_path);  // an escaped name
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<uint64_t>(st.st_size) > kMaxResultFileBytes) {
    const std::string why = fd < 0                 ? "cannot open it"
                            : !S_ISREG(st.st_mode) ? "it is " + FileKind(st.st_mode) + " (accepted: a regular file)"
                                                   : "it is over " + std::to_string(kMaxResultFileBytes) + " bytes";
    if (fd >= 0) close(fd);
    return InvalidArgument("cannot read the samples file " + path + ": " + why);
  }
  FILE* in = fdopen(fd, "r");
  if (in == nullptr) {
    close(fd);
    return InvalidArgument("cannot read the samples file " + path);
  }
  std::unique_ptr<SamplesReader> reader(new SamplesReader(path, in));
  // Index the lines by point id, reading only each line's head: {"id": "...", ...}.
  std::string line;
  for (size_t n = 1;; ++n) {
    const long at = std::ftell(in);
    if (!NextLine(in, &line)) break;
    std::string id;
    SampleSet ignored;
    RETURN_IF_ERROR(ReadSamplesLine(line, path + ":" + std::to_string(n), &id, &ignored));
    reader->offsets_[id] = at;
  }
  for (const PointResult& p : file.points) {
    if (!p.samples_us.file.empty() && reader->offsets_.count(p.id) == 0) {
      return InvalidArgument(path + ": no samples for point '" + p.id + "'");
    }
  }
  return reader;
}

SamplesReader::~SamplesReader() {
  if (in_ != nullptr) std::fclose(in_);
}

StatusOr<std::vector<std::vector<double>>> SamplesReader::Read(const PointResult& point) {
  if (point.samples_us.file.empty()) return point.samples_us.per_rank;
  auto it = offsets_.find(point.id);
  if (in_ == nullptr || it == offsets_.end())
    return InvalidArgument(path_ + ": no samples for point '" + point.id + "'");
  std::string line;
  if (std::fseek(in_, it->second, SEEK_SET) != 0 || !NextLine(in_, &line)) {
    return InvalidArgument("cannot read the samples file " + path_);
  }
  std::string id;
  SampleSet samples;
  RETURN_IF_ERROR(ReadSamplesLine(line, path_, &id, &samples));
  return std::move(samples.per_rank);
}

}  // namespace commbench::result
