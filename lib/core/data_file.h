// Files commbench reads as data (result files and their sidecars, baselines, calibrations, configs, history
// indexes): a FIFO would block the run, /dev/zero never ends, a directory is not data, and a file of gigabytes
// would be parsed into more. So a data file is opened without blocking, must be a regular file (a symlink to one
// is followed: the user named it), and is refused before parsing when it is larger than its kind allows.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "lib/core/status.h"

namespace commbench {

// Bounds per kind of input, far above what commbench itself writes (a result of 1000 points is about 5 MB).
inline constexpr size_t kMaxResultFileBytes = size_t{512} << 20;  // a result, or its samples sidecar
inline constexpr size_t kMaxIndexFileBytes = size_t{64} << 20;    // a history index, a host-peak cache
inline constexpr size_t kMaxConfigFileBytes = size_t{4} << 20;    // a sweep config, a profile, a split matrix

// The whole file at `path`. InvalidArgument, naming the path, what it is and what is accepted, when it is not a
// regular file or is larger than `max_bytes`; NotFound when it does not exist; Unavailable when it cannot be read.
// `what` names the input in the message ("result file", "baseline").
StatusOr<std::string> ReadDataFile(const std::string& path, size_t max_bytes, std::string_view what = "file");

// The same for a file opened by the caller (openat under a store's directory); `fd` is closed.
StatusOr<std::string> ReadOpenedDataFile(int fd, const std::string& path, size_t max_bytes, std::string_view what);

// "a FIFO", "a directory", "a device", "a socket", "a symlink", "a regular file" for an lstat/fstat mode.
std::string FileKind(unsigned mode);

}  // namespace commbench
