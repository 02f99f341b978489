// Status / StatusOr: errors as values, in the spirit of absl::Status, without the dependency.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace commbench {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // bad user input: the CLI maps it to exit code 2
  kNotFound,
  kUnavailable,  // a backend or resource that cannot run here
  kDeadlineExceeded,
  kDataLoss,  // a collective produced wrong values
  kInternal,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status Unavailable(std::string m) { return Status(StatusCode::kUnavailable, std::move(m)); }
inline Status DeadlineExceeded(std::string m) { return Status(StatusCode::kDeadlineExceeded, std::move(m)); }
inline Status DataLoss(std::string m) { return Status(StatusCode::kDataLoss, std::move(m)); }
inline Status Internal(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit like absl::StatusOr
  StatusOr(Status status) : status_(std::move(status)) {
    if (status_.ok()) status_ = Internal("StatusOr constructed from an OK status without a value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace commbench

#define COMMBENCH_CONCAT_INNER(a, b) a##b
#define COMMBENCH_CONCAT(a, b) COMMBENCH_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)             \
  do {                                    \
    ::commbench::Status _status = (expr); \
    if (!_status.ok()) return _status;    \
  } while (0)

#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(COMMBENCH_CONCAT(_status_or_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
