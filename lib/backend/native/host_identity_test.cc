#include "lib/backend/native/host_identity.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <thread>

namespace commbench {
namespace native {
namespace {

TEST(HostIdentityTest, NamesTheNetworkNamespaceByItsInode) {
  struct stat st {};
  ASSERT_EQ(stat("/proc/self/ns/net", &st), 0);
  const std::string ns = "net:[" + std::to_string(st.st_ino) + "]";
  EXPECT_EQ(NetNamespaceId(), ns);
  const std::string id = HostIdentity();
  ASSERT_GE(id.size(), ns.size());
  EXPECT_EQ(id.substr(id.size() - ns.size()), ns) << id;
  // hostname / boot id / namespace: a boot id is 36 characters.
  EXPECT_EQ(std::count(id.begin(), id.end(), '/'), 2) << id;
}

TEST(HostIdentityTest, ThreadsOfOneProcessAgree) {
  std::string other;
  std::thread t([&] { other = HostIdentity(); });
  t.join();
  EXPECT_EQ(other, HostIdentity());
}

// A thread that enters a network namespace of its own is another host to the native backend (vcluster's hosts
// are namespaces). Needs CAP_SYS_ADMIN; skipped without it.
TEST(HostIdentityTest, AnotherNetworkNamespaceIsAnotherHost) {
  std::string other;
  int error = 0;
  std::thread t([&] {
    if (unshare(CLONE_NEWNET) != 0) {
      error = errno;
      return;
    }
    other = HostIdentity();
  });
  t.join();
  if (error != 0) GTEST_SKIP() << "unshare(CLONE_NEWNET): errno " << error;
  EXPECT_NE(other, HostIdentity());
  EXPECT_EQ(other.substr(0, other.rfind('/')), HostIdentity().substr(0, HostIdentity().rfind('/')));
}

}  // namespace
}  // namespace native
}  // namespace commbench
