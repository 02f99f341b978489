// A measured peak for the host, so that aggregate bandwidth can be read as a fraction of what the machine can
// do: memory copy bandwidth (memcpy of a buffer far beyond the caches) and loopback TCP bandwidth (a real socket
// pair over 127.0.0.1 with a sender thread). Short (well under a second) and cached per host.
#pragma once

#include <cstddef>
#include <string>

#include "lib/core/status.h"

namespace commbench {

struct HostPeaks {
  double memcpy_gbps = 0;        // decimal GB/s of bytes copied (each byte is read once and written once)
  double tcp_loopback_gbps = 0;  // decimal GB/s of payload received
  double load_per_core = -1;     // the host's load when measured (1-minute load average per online CPU); -1 unknown
  bool from_cache = false;
  std::string cache_key;   // hostname + CPU model
  std::string cache_file;  // where it was read from or written to ("" when not cached)
};

struct HostPeakOptions {
  size_t memcpy_bytes = size_t{64} << 20;  // 64 MiB: beyond the last-level cache of any machine we run on
  double memcpy_budget_s = 0.15;
  size_t tcp_chunk_bytes = size_t{1} << 20;
  double tcp_budget_s = 0.15;
  // Cache directory; "" means $XDG_CACHE_HOME/commbench, else $HOME/.cache/commbench.
  std::string cache_dir;
  bool refresh = false;  // measure even when the cache has an entry (and update it)
  // The host's load now, per online CPU; negative reads /proc/loadavg. Tests set it.
  double load_per_core = -1;
};

// A cached peak taken above this load per core was measured while other work shared the machine: it is
// re-measured when the host is quieter, and the higher of the two values is kept (a peak is the best seen).
inline constexpr double kBusyLoadPerCore = 0.5;

// 1-minute load average / online CPUs (0 when /proc/loadavg cannot be read).
double HostLoadPerCore();

// The cache key of this host: "<hostname>|<cpu model>".
std::string HostPeakCacheKey();

// Default cache directory (see HostPeakOptions::cache_dir); "" when neither variable is set.
std::string DefaultHostPeakCacheDir();

// Measures both peaks now, without touching the cache.
StatusOr<HostPeaks> MeasureHostPeaks(const HostPeakOptions& options = {});

// The cached peaks of this host when present (and not `refresh`), else measures and caches them. A cache that
// cannot be written is not an error: the measured peaks are returned with cache_file "". An entry measured
// under load (kBusyLoadPerCore) is re-measured whenever the load is lower than it was, keeping the maxima.
StatusOr<HostPeaks> GetHostPeaks(const HostPeakOptions& options = {});

}  // namespace commbench
