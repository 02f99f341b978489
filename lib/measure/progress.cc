#include "lib/measure/progress.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>
#include <tuple>

namespace commbench {

// Each field is its own lock-free atomic: the reader may see fields of two neighbouring updates, which at
// worst shifts an iteration count by one against its timestamp.
struct ProgressLayout {
  std::atomic<int64_t> magic;
  std::atomic<int32_t> rank;
  std::atomic<int32_t> pid;
  char host[64];
  std::atomic<int32_t> point_index;
  std::atomic<int32_t> phase;
  std::atomic<int64_t> started;
  std::atomic<int64_t> completed;
  std::atomic<int64_t> updated_ns;
  std::atomic<int32_t> failed;
};

namespace {

constexpr int64_t kMagic = 0x636d6270726f6731;  // "cmbprog1"
static_assert(std::atomic<int64_t>::is_always_lock_free, "progress pages need lock-free 64-bit atomics");
constexpr size_t kPageBytes = 4096;

}  // namespace

std::string_view Name(ProgressPhase phase) {
  switch (phase) {
    case ProgressPhase::kSetup:
      return "setup";
    case ProgressPhase::kWarmup:
      return "warm-up";
    case ProgressPhase::kTimed:
      return "timed";
    case ProgressPhase::kPointDone:
      return "done";
  }
  return "unknown";
}

int64_t MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string ProgressPath(const std::string& dir, int rank) { return dir + "/rank-" + std::to_string(rank); }

StatusOr<ProgressPage> ProgressPage::Create(const std::string& path, int rank) {
  static_assert(sizeof(ProgressLayout) <= kPageBytes, "one page");
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Internal("progress page " + path + ": " + std::strerror(errno));
  void* p = MAP_FAILED;
  if (ftruncate(fd, kPageBytes) == 0) p = mmap(nullptr, kPageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  close(fd);
  if (p == MAP_FAILED) return Internal("progress page " + path + ": " + std::strerror(err));
  ProgressPage page;
  page.page_ = new (p) ProgressLayout{};
  page.page_->rank = rank;
  page.page_->pid = static_cast<int32_t>(getpid());
  gethostname(page.page_->host, sizeof(page.page_->host) - 1);
  page.page_->point_index = -1;
  page.page_->updated_ns = MonotonicNowNs();
  page.page_->magic.store(kMagic, std::memory_order_release);
  return page;
}

ProgressPage::ProgressPage(ProgressPage&& other) noexcept : page_(other.page_) { other.page_ = nullptr; }

ProgressPage& ProgressPage::operator=(ProgressPage&& other) noexcept {
  std::swap(page_, other.page_);
  return *this;
}

ProgressPage::~ProgressPage() {
  if (page_ != nullptr) munmap(page_, kPageBytes);
}

void ProgressPage::EnterPhase(int point_index, ProgressPhase phase) {
  if (page_ == nullptr) return;
  page_->started.store(0, std::memory_order_relaxed);
  page_->completed.store(0, std::memory_order_relaxed);
  page_->point_index.store(point_index, std::memory_order_relaxed);
  page_->phase.store(static_cast<int32_t>(phase), std::memory_order_relaxed);
  page_->updated_ns.store(MonotonicNowNs(), std::memory_order_release);
}

void ProgressPage::Started(int64_t iterations) {
  if (page_ != nullptr) page_->started.store(iterations, std::memory_order_release);
}

void ProgressPage::Completed(int64_t iterations, int64_t now_ns) {
  if (page_ == nullptr) return;
  page_->completed.store(iterations, std::memory_order_relaxed);
  page_->updated_ns.store(now_ns, std::memory_order_release);
}

void ProgressPage::Failed() {
  if (page_ == nullptr) return;
  page_->failed.store(1, std::memory_order_relaxed);
  page_->updated_ns.store(MonotonicNowNs(), std::memory_order_release);
}

StatusOr<ProgressSnapshot> ReadProgress(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NotFound("no progress page " + path);
  void* p = MAP_FAILED;
  struct stat st;
  if (fstat(fd, &st) == 0 && static_cast<size_t>(st.st_size) >= kPageBytes) {
    p = mmap(nullptr, kPageBytes, PROT_READ, MAP_SHARED, fd, 0);
  }
  close(fd);
  if (p == MAP_FAILED) return NotFound("progress page " + path + " not written yet");
  const auto* page = static_cast<const ProgressLayout*>(p);
  ProgressSnapshot s;
  const bool valid = page->magic.load(std::memory_order_acquire) == kMagic;
  if (valid) {
    s.rank = page->rank;
    s.pid = page->pid;
    s.host.assign(page->host, strnlen(page->host, sizeof(page->host)));
    s.updated_ns = page->updated_ns.load(std::memory_order_acquire);
    s.point_index = page->point_index;
    s.phase = static_cast<ProgressPhase>(page->phase.load());
    s.started = page->started;
    s.completed = page->completed;
    s.failed = page->failed != 0;
  }
  munmap(const_cast<void*>(p), kPageBytes);
  if (!valid) return NotFound("progress page " + path + " not written yet");
  return s;
}

bool SameProgress(const ProgressSnapshot& a, const ProgressSnapshot& b) {
  return std::tie(a.pid, a.point_index, a.phase, a.started, a.completed, a.failed) ==
         std::tie(b.pid, b.point_index, b.phase, b.started, b.completed, b.failed);
}

bool InsideAnOp(const ProgressSnapshot& s) {
  const bool in_loop = s.phase == ProgressPhase::kWarmup || s.phase == ProgressPhase::kTimed;
  return s.pid != 0 && in_loop && s.started > s.completed;
}

bool LessFarIn(const ProgressSnapshot& a, const ProgressSnapshot& b) {
  auto key = [](const ProgressSnapshot& s) {
    return std::make_tuple(s.point_index, static_cast<int32_t>(s.phase), s.completed, s.started);
  };
  return key(a) < key(b);
}

std::vector<ProgressSnapshot> StoppedFirst(const std::vector<ProgressSnapshot>& late) {
  std::vector<ProgressSnapshot> first;
  for (const ProgressSnapshot& s : late) {
    if (first.empty() || LessFarIn(s, first.front())) {
      first = {s};
    } else if (!LessFarIn(first.front(), s)) {
      first.push_back(s);
    }
  }
  return first;
}

}  // namespace commbench
