// A rank killed (SIGKILL) in the middle of collectives leaves no shared-memory segment behind, and its peer
// reports it instead of hanging. The peer is a forked child process, as the driver's ranks are.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "lib/backend/backend.h"
#include "lib/backend/native/shm/segment.h"
#include "lib/backend/testing/thread_group.h"
#include "lib/core/temp_dir.h"
#include "lib/measure/pattern.h"
#include "lib/rendezvous/store.h"

namespace commbench {
namespace native {
namespace {

using testing::RunAndCheck;
using testing::RunThreads;

std::vector<std::string> SegmentsOf(pid_t pid) {
  std::vector<std::string> found;
  std::string prefix = std::string(kSegmentPrefix + 1) + std::to_string(pid) + "-";
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return found;
  while (dirent* e = readdir(dir)) {
    if (std::string(e->d_name).rfind(prefix, 0) == 0) found.push_back(e->d_name);
  }
  closedir(dir);
  return found;
}

StatusOr<std::unique_ptr<Communicator>> Connect(Store* store, int rank) {
  ASSIGN_OR_RETURN(auto backend, CreateBackend("native"));
  ConnectRequest connect;
  connect.place = RankPlace{rank, 2, 0, rank, 2, rank};
  connect.store = store;
  connect.timeout = std::chrono::milliseconds(20000);
  return backend->Connect(connect);
}

OpRequest BigAllreduce() {
  OpRequest r;
  r.count = 4 << 20;  // 16 MiB of f32: each Run takes milliseconds, so the kill lands inside one
  r.algo = "ring";
  return r;
}

TEST(ShmKillTest, KilledRankLeavesNoSegmentAndPeerReportsIt) {
  TempDir dir("commbench-shm-kill-");
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Rank 1: run allreduces until killed.
    auto store = NewFileStore(dir.path());
    auto comm = Connect(store.get(), 1);
    if (!comm.ok()) _exit(2);
    auto work = (*comm)->Prepare(BigAllreduce());
    if (!work.ok()) _exit(3);
    for (;;) {
      if (!(*work)->Run().ok()) _exit(4);
    }
  }
  auto store = NewFileStore(dir.path());
  auto comm = Connect(store.get(), 0);
  ASSERT_TRUE(comm.ok()) << comm.status().message();
  auto work = (*comm)->Prepare(BigAllreduce());
  ASSERT_TRUE(work.ok()) << work.status().message();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*work)->Run().ok());

  kill(child, SIGKILL);
  auto start = std::chrono::steady_clock::now();
  Status st;
  for (int i = 0; i < 1000 && st.ok(); ++i) st = (*work)->Run();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.message();
  EXPECT_NE(st.message().find("exited"), std::string::npos) << st.message();
  EXPECT_LT(seconds, 5.0);

  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  EXPECT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL);
  EXPECT_TRUE(SegmentsOf(child).empty());
  EXPECT_TRUE(SegmentsOf(getpid()).empty());
}

}  // namespace
}  // namespace native
}  // namespace commbench
