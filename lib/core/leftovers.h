// What a killed process (SIGKILL, a crash, a power cut) leaves behind: its private temporary directory and the
// temporary files beside its outputs. Their names carry the creating pid (`<prefix><pid>-XXXXXX`,
// `<output>.tmp-<pid>-XXXXXX`), so that a later run in the same place recognises and removes them: only entries
// of this user, of exactly that shape, whose pid no longer runs (or now belongs to a process started after the
// entry was last changed: the pid was reused). A live run's entries are never touched.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

namespace commbench {

// The pid in `name` when it is `<head><pid>-XXXXXX` (six letters or digits, as mkstemp/mkdtemp make), where
// `head` is `prefix` at the start (`at_start`) or the last occurrence of `prefix` in `name`.
std::optional<pid_t> LeftoverPid(std::string_view name, std::string_view prefix, bool at_start);

// True when the process that made an entry last changed at `mtime` (seconds since the epoch) is gone: `pid` does
// not run, or the process holding it now started after `mtime`.
bool CreatorGone(pid_t pid, double mtime);

// Removes the entries of `dir` named `<prefix><pid>-XXXXXX` (directories, with their contents) whose creator is
// gone. Returns how many were removed. Errors are ignored: this is housekeeping, never a reason to fail a run.
int RemoveLeftoverDirs(const std::string& dir, std::string_view prefix);
// The same for files named `<anything>.tmp-<pid>-XXXXXX` (AtomicFile's temporary files).
int RemoveLeftoverTempFiles(const std::string& dir);

}  // namespace commbench
