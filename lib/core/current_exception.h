// What an exception that reached a catch-all says, as one line for `commbench: error: ...`: the measured result
// is kept and the run ends with an error line, never with std::terminate (exit 134, temporary files left).
#pragma once

#include <exception>
#include <new>
#include <string>

namespace commbench {

// Call only inside a catch block.
inline std::string CurrentExceptionText() {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return "out of memory";
  } catch (const std::exception& e) {
    return std::string("internal error: ") + e.what();
  } catch (...) {
    return "internal error: an unknown exception";
  }
}

}  // namespace commbench
