#include "lib/backend/native/shm/segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace commbench {
namespace native {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

StatusOr<std::string> RandomName() {
  unsigned char bytes[16];
  if (getrandom(bytes, sizeof(bytes), 0) != static_cast<ssize_t>(sizeof(bytes))) {
    return Internal(Errno("native shm: getrandom"));
  }
  static const char kHex[] = "0123456789abcdef";
  std::string name = std::string(kSegmentPrefix) + std::to_string(getpid()) + "-";
  for (unsigned char b : bytes) {
    name += kHex[b >> 4];
    name += kHex[b & 15];
  }
  return name;
}

StatusOr<void*> Map(int fd, size_t bytes, const std::string& name) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) return Internal(Errno("native shm: mmap " + name + " (" + std::to_string(bytes) + " B)"));
  return p;
}

}  // namespace

Segment::~Segment() { Release(); }

Segment::Segment(Segment&& other) noexcept { *this = std::move(other); }

Segment& Segment::operator=(Segment&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = other.data_;
    size_ = other.size_;
    name_ = std::move(other.name_);
    owner_ = other.owner_;
    other.data_ = nullptr;
    other.size_ = 0;
    other.owner_ = false;
  }
  return *this;
}

void Segment::Release() {
  Unlink();
  if (data_ != nullptr) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

void Segment::Unlink() {
  if (owner_) shm_unlink(name_.c_str());
  owner_ = false;
}

StatusOr<Segment> Segment::Create(size_t bytes) {
  if (bytes == 0) bytes = 1;
  Segment s;
  ASSIGN_OR_RETURN(s.name_, RandomName());
  int fd = shm_open(s.name_.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, S_IRUSR | S_IWUSR);
  if (fd < 0) return Internal(Errno("native shm: shm_open " + s.name_));
  s.owner_ = true;  // from here on the destructor unlinks
  // fchmod: the umask could only narrow 0600, but be explicit about it.
  int rc = fchmod(fd, S_IRUSR | S_IWUSR);
  if (rc == 0) rc = ftruncate(fd, static_cast<off_t>(bytes));
  if (rc != 0) {
    Status st = Internal(Errno("native shm: size " + s.name_));
    close(fd);
    return st;
  }
  int err = posix_fallocate(fd, 0, static_cast<off_t>(bytes));
  if (err != 0) {
    close(fd);
    return Unavailable("native shm: cannot reserve " + std::to_string(bytes) + " B in /dev/shm: " + std::strerror(err));
  }
  auto mapped = Map(fd, bytes, s.name_);
  close(fd);
  if (!mapped.ok()) return mapped.status();
  s.data_ = *mapped;
  s.size_ = bytes;
  return s;
}

StatusOr<Segment> Segment::Open(const std::string& name, size_t bytes) {
  if (bytes == 0) bytes = 1;
  if (name.rfind(kSegmentPrefix, 0) != 0) return Internal("native shm: unexpected segment name '" + name + "'");
  int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) return Internal(Errno("native shm: open " + name));
  struct stat st;
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) < bytes) {
    close(fd);
    return Internal("native shm: " + name + " is smaller than the " + std::to_string(bytes) + " B expected");
  }
  auto mapped = Map(fd, bytes, name);
  close(fd);
  if (!mapped.ok()) return mapped.status();
  Segment s;
  s.name_ = name;
  s.data_ = *mapped;
  s.size_ = bytes;
  return s;
}

}  // namespace native
}  // namespace commbench
