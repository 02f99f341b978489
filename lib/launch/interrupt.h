// Ctrl-C, SIGTERM, SIGHUP and SIGPIPE (the reader of its output went away: `commbench sweep 2>&1 | head`) set a
// flag that the driver polls; it then stops the ranks, writes what it has and removes its temporary files,
// instead of dying with them behind.
#pragma once

namespace commbench {

void InstallInterruptHandlers();
bool Interrupted();
int InterruptSignal();  // the signal that interrupted, or 0

}  // namespace commbench
