// Which ranks share a host, for the native backend's choice of transport (shm when every rank of a group is on
// this host, tcp otherwise).
#pragma once

#include <string>

namespace commbench {
namespace native {

// The calling thread's network namespace as the kernel names it ("net:[4026531840]"; the number is the inode of
// /proc/thread-self/ns/net), or "" where /proc cannot tell.
std::string NetNamespaceId();

// "<hostname>/<boot id>/<network namespace>". A host, here, is what shares memory AND network identity: the
// hostname alone is shared by look-alike containers, the boot id by every container and network namespace of
// one kernel. Ranks in different network namespaces (the hosts of tools/vcluster.sh, containers with their own
// network) must talk over TCP as they would across machines; containers of one pod share the namespace (and
// /dev/shm, usually) and stay one host.
std::string HostIdentity();

}  // namespace native
}  // namespace commbench
