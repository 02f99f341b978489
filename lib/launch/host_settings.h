// Checks of the settings that name this host's resources (--cpus, --host, --iface) against the host itself,
// before any rank starts: a CPU the process may not use, an address no socket can bind, an interface that does
// not exist are bad input (one line, exit 2), not a rank that dies later.
#pragma once

#include <string>
#include <vector>

#include "lib/core/status.h"
#include "lib/model/spec.h"

namespace commbench {

// `allowed`: the CPUs this process may run on (AllowedCpus()).
Status CheckCpus(const std::vector<std::string>& cpu_lists, const std::vector<int>& allowed);
// An address (IPv4 or IPv6) or name that resolves to one this host can bind.
Status CheckBindableHost(const std::string& host);
// An interface of this host; the error lists those that exist.
Status CheckInterface(const std::string& iface);

Status CheckHostSettings(const SweepSpec& spec);

}  // namespace commbench
