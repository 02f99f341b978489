// The address this process's transports bind and advertise to peers on other hosts, when the user did not name
// one: the interface's address (--iface), else the source address of the route towards the rendezvous host (the
// interface peers reach us on), else the first non-loopback IPv4 address of an interface that is up.
#pragma once

#include <string>

#include "lib/core/status.h"

namespace commbench {

// The IPv4 address of interface `iface`; InvalidArgument names it and lists the interfaces that have one.
StatusOr<std::string> InterfaceAddress(const std::string& iface);

// The local IPv4 address the kernel would send from to reach `host` (a name or an address); "" when there is
// no route or the name does not resolve. Sends nothing.
std::string AddressTowards(const std::string& host);

// The first IPv4 address of an up, non-loopback interface; "127.0.0.1" when there is none.
std::string FirstNonLoopbackAddress();

}  // namespace commbench
