#include "lib/measure/host_peak.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <vector>

#include "lib/measure/loopback_pair.h"

namespace commbench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(" \t"));
        return v;
      }
    }
  }
  return "unknown";
}

// Best of repeated copies: the best one is the least disturbed by other load, which is what a peak means.
double MeasureMemcpy(const HostPeakOptions& o) {
  std::vector<char> src(o.memcpy_bytes), dst(o.memcpy_bytes);
  std::memset(src.data(), 1, src.size());  // fault the pages in before timing
  std::memset(dst.data(), 2, dst.size());
  double best = 0;
  auto start = Clock::now();
  for (int rep = 0; rep < 3 || Seconds(start, Clock::now()) < o.memcpy_budget_s; ++rep) {
    auto t0 = Clock::now();
    std::memcpy(dst.data(), src.data(), src.size());
    auto t1 = Clock::now();
    src[static_cast<size_t>(rep) % src.size()] ^= dst[static_cast<size_t>(rep * 4099) % dst.size()];
    double s = Seconds(t0, t1);
    if (s > 0) best = std::max(best, static_cast<double>(src.size()) / s / 1e9);
    if (rep > 1000) break;
  }
  volatile char sink = dst[dst.size() / 2];
  (void)sink;
  return best;
}

StatusOr<double> MeasureTcpLoopback(const HostPeakOptions& o) {
  Fd client, server;
  RETURN_IF_ERROR(ConnectLoopbackPair("host peak", &client, &server));

  // The sender stops after the budget and half-closes, so the receiver's EOF ends the measurement.
  std::atomic<bool> send_failed{false};
  std::thread sender([&] {
    std::vector<char> chunk(o.tcp_chunk_bytes, 7);
    auto start = Clock::now();
    while (Seconds(start, Clock::now()) < o.tcp_budget_s) {
      size_t off = 0;
      while (off < chunk.size()) {
        ssize_t n = ::send(client.get(), chunk.data() + off, chunk.size() - off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          send_failed = true;
          ::shutdown(client.get(), SHUT_WR);
          return;
        }
        off += static_cast<size_t>(n);
      }
    }
    ::shutdown(client.get(), SHUT_WR);
  });

  std::vector<char> buf(o.tcp_chunk_bytes);
  size_t received = 0;
  bool started = false;
  Clock::time_point first, last;
  for (;;) {
    ssize_t n = ::recv(server.get(), buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (!started) {
      started = true;  // time from the first byte: connection set-up is not bandwidth
      first = Clock::now();
    } else {
      received += static_cast<size_t>(n);
    }
    last = Clock::now();
  }
  sender.join();
  if (send_failed) return Unavailable("host peak: loopback send failed");
  double s = started ? Seconds(first, last) : 0;
  if (s <= 0 || received == 0) return Unavailable("host peak: no data over loopback");
  return static_cast<double>(received) / s / 1e9;
}

std::string CacheFile(const std::string& dir) { return dir.empty() ? "" : dir + "/host_peaks.json"; }

bool MakeDirs(const std::string& path) {
  std::string partial;
  std::stringstream ss(path);
  std::string part;
  if (!path.empty() && path[0] == '/') partial = "/";
  while (std::getline(ss, part, '/')) {
    if (part.empty()) continue;
    partial += part + "/";
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

nlohmann::json ReadCache(const std::string& file) {
  std::ifstream in(file);
  if (!in) return nlohmann::json::object();
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : nlohmann::json::object();
}

}  // namespace

std::string HostPeakCacheKey() {
  char host[256] = {0};
  if (::gethostname(host, sizeof(host) - 1) != 0) std::strcpy(host, "unknown");
  return std::string(host) + "|" + CpuModel();
}

std::string DefaultHostPeakCacheDir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] != '\0') return std::string(xdg) + "/commbench";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.cache/commbench";
  return "";
}

double HostLoadPerCore() {
  std::ifstream in("/proc/loadavg");
  double load1 = 0;
  if (!(in >> load1)) return 0;
  long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 0 ? load1 / static_cast<double>(cpus) : 0;
}

StatusOr<HostPeaks> MeasureHostPeaks(const HostPeakOptions& options) {
  HostPeaks p;
  p.cache_key = HostPeakCacheKey();
  p.load_per_core = options.load_per_core >= 0 ? options.load_per_core : HostLoadPerCore();
  p.memcpy_gbps = MeasureMemcpy(options);
  StatusOr<double> tcp = MeasureTcpLoopback(options);
  if (!tcp.ok()) return tcp.status();
  p.tcp_loopback_gbps = *tcp;
  return p;
}

StatusOr<HostPeaks> GetHostPeaks(const HostPeakOptions& options) {
  std::string dir = options.cache_dir.empty() ? DefaultHostPeakCacheDir() : options.cache_dir;
  std::string file = CacheFile(dir);
  std::string key = HostPeakCacheKey();
  HostPeakOptions now = options;
  if (now.load_per_core < 0) now.load_per_core = HostLoadPerCore();
  nlohmann::json cache = file.empty() ? nlohmann::json::object() : ReadCache(file);
  HostPeaks cached;
  if (!options.refresh && cache.contains(key) && cache[key].is_object()) {
    const nlohmann::json& e = cache[key];
    cached.memcpy_gbps = e.value("memcpy_gbps", 0.0);
    cached.tcp_loopback_gbps = e.value("tcp_loopback_gbps", 0.0);
    cached.load_per_core = e.value("load_per_core", -1.0);  // -1: an entry from before loads were kept
    cached.from_cache = true;
    cached.cache_key = key;
    cached.cache_file = file;
    const bool valid = cached.memcpy_gbps > 0 && cached.tcp_loopback_gbps > 0;
    const bool quieter_now = cached.load_per_core > kBusyLoadPerCore && now.load_per_core < cached.load_per_core;
    if (valid && !quieter_now) return cached;
    if (!valid) cached = HostPeaks();
  }
  StatusOr<HostPeaks> measured = MeasureHostPeaks(now);
  if (!measured.ok()) return cached.from_cache ? StatusOr<HostPeaks>(cached) : measured;
  if (cached.from_cache) {  // re-measured because the entry was taken under load: keep the best of both
    measured->memcpy_gbps = std::max(measured->memcpy_gbps, cached.memcpy_gbps);
    measured->tcp_loopback_gbps = std::max(measured->tcp_loopback_gbps, cached.tcp_loopback_gbps);
  }
  if (file.empty() || !MakeDirs(dir)) return measured;
  cache[key] = {{"memcpy_gbps", measured->memcpy_gbps},
                {"tcp_loopback_gbps", measured->tcp_loopback_gbps},
                {"load_per_core", measured->load_per_core},
                {"measured_at", static_cast<int64_t>(std::time(nullptr))}};
  // Write then rename, so that a concurrent reader never sees half a file.
  std::string tmp = file + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << cache.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out) {
      std::remove(tmp.c_str());
      return measured;
    }
  }
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    std::remove(tmp.c_str());
    return measured;
  }
  measured->cache_file = file;
  return measured;
}

}  // namespace commbench
