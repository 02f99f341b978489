#include "lib/measure/host_reference.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lib/measure/loopback_pair.h"

namespace commbench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

Status Failed(const std::string& what) { return Unavailable("host reference: " + what + ": " + std::strerror(errno)); }

class Mapping {
 public:
  explicit Mapping(size_t bytes)
      : bytes_(bytes), p_(::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) {}
  ~Mapping() {
    if (ok()) ::munmap(p_, bytes_);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  bool ok() const { return p_ != MAP_FAILED; }
  char* data() const { return static_cast<char*>(p_); }

 private:
  size_t bytes_;
  void* p_;
};

bool SendAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

bool RecvAll(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = ::recv(fd, p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

// A connected pair over 127.0.0.1 with Nagle off (each round trip is one message each way).
Status Connect(Fd* client, Fd* server) {
  RETURN_IF_ERROR(ConnectLoopbackPair("host reference", client, server));
  const int one = 1;
  ::setsockopt(client->get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  ::setsockopt(server->get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return OkStatus();
}

// The first two CPUs this process may use (one twice where it may use one): the two ends of the round trips sit
// on them as two pinned ranks of a pair do, so that each sample crosses CPUs alike, whatever ran before it.
std::pair<int, int> TwoCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) != 0) return {-1, -1};
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty()) return {-1, -1};
  return {cpus.front(), cpus.back()};
}

void PinThisThread(int cpu) {
  if (cpu < 0) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::sched_setaffinity(0, sizeof(set), &set);  // best effort: unpinned, the sample is still the host's
}

// Round trips of the workload's sizes, `small` then `large` of them, initiated (or, `echo`, answered) on `fd`.
bool Exchange(int fd, const result::HostReferenceWorkload& w, int small, int large, bool echo, std::string* buf) {
  for (int i = 0; i < small + large; ++i) {
    const size_t n = i < small ? 8 : w.large_bytes;
    const bool ok = echo ? RecvAll(fd, buf->data(), n) && SendAll(fd, buf->data(), n)
                         : SendAll(fd, buf->data(), n) && RecvAll(fd, buf->data(), n);
    if (!ok) return false;
  }
  return true;
}

// Warm-up round trips before the timed ones: a connection's first messages and a CPU woken from idle are not the
// host's speed.
constexpr int kWarmupSmall = 16, kWarmupLarge = 4;

// The round trips, timed on the initiating thread; each end on its own pinned thread (the caller's affinity stays).
StatusOr<double> RoundTrips(const result::HostReferenceWorkload& w) {
  Fd client, server;
  RETURN_IF_ERROR(Connect(&client, &server));
  const auto [first, second] = TwoCpus();
  const size_t largest = std::max<size_t>(w.large_bytes, 8);
  bool echo_ok = true, ok = true;
  double s = 0;
  std::thread echo([&, cpu = second] {
    PinThisThread(cpu);
    std::string buf(largest, '\0');
    echo_ok = Exchange(server.get(), w, kWarmupSmall, kWarmupLarge, true, &buf) &&
              Exchange(server.get(), w, w.small_round_trips, w.large_round_trips, true, &buf);
  });
  std::thread initiator([&, cpu = first] {
    PinThisThread(cpu);
    std::string buf(largest, 'r');
    ok = Exchange(client.get(), w, kWarmupSmall, kWarmupLarge, false, &buf);
    const Clock::time_point start = Clock::now();
    ok = ok && Exchange(client.get(), w, w.small_round_trips, w.large_round_trips, false, &buf);
    s = Seconds(start, Clock::now());
    if (!ok) ::shutdown(client.get(), SHUT_RDWR);  // the echo's receive ends
  });
  initiator.join();
  echo.join();
  if (!ok || !echo_ok) return Failed("a loopback round trip");
  return s;
}

StatusOr<double> Copies(const result::HostReferenceWorkload& w) {
  Mapping src(w.copy_bytes), dst(w.copy_bytes);
  if (!src.ok() || !dst.ok()) return Failed("mmap");
  std::memset(src.data(), 1, w.copy_bytes);  // the pages faulted in before timing
  std::memset(dst.data(), 2, w.copy_bytes);
  std::memcpy(dst.data(), src.data(), w.copy_bytes);  // warm-up, as the round trips'
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < w.copies; ++i) {
    std::memcpy(dst.data(), src.data(), w.copy_bytes);
    src.data()[static_cast<size_t>(i) * 4099 % w.copy_bytes] ^= dst.data()[w.copy_bytes / 2];  // each copy needed
  }
  const double s = Seconds(start, Clock::now());
  volatile char sink = dst.data()[w.copy_bytes / 3];
  (void)sink;
  return s;
}

}  // namespace

StatusOr<result::HostReferenceSample> MeasureHostReference(const result::HostReferenceWorkload& w) {
  result::HostReferenceSample s;
  ASSIGN_OR_RETURN(s.loopback_s, RoundTrips(w));
  ASSIGN_OR_RETURN(s.copy_s, Copies(w));
  return s;
}

Status AddHostReferenceSamples(int n, result::HostReference* r) {
  for (int i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(result::HostReferenceSample s, MeasureHostReference(r->workload));
    r->Add(s);
  }
  return OkStatus();
}

}  // namespace commbench
