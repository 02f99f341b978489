#include "lib/backend/testing/thread_group.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "lib/core/temp_dir.h"
#include "lib/measure/pattern.h"
#include "lib/rendezvous/store.h"

namespace commbench {
namespace testing {

ExitLatch::ExitLatch(int n) : n_(n) {}

void ExitLatch::Arrive() { arrived_.fetch_add(1); }

void ExitLatch::ArriveAndWait() {
  Arrive();
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (arrived_.load() < n_ && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
}

Departure::~Departure() {
  if (!waited_) latch_->Arrive();
}

void Departure::LeaveTogether() {
  waited_ = true;
  latch_->ArriveAndWait();
}

std::vector<Status> RunThreads(const std::string& backend_name, int n,
                               const std::function<Status(int rank, Communicator* comm)>& body) {
  static TempDir dir("commbench-thread-group-");
  static std::atomic<int> group_id{0};
  const std::string prefix = "group" + std::to_string(group_id++);
  std::vector<Status> results(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  ExitLatch latch(n);
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      results[static_cast<size_t>(r)] = [&]() -> Status {
        Departure departure(&latch);  // declared first: on an error path it arrives after the communicator went
        ASSIGN_OR_RETURN(auto backend, CreateBackend(backend_name));
        auto store = NewFileStore(dir.path());
        PrefixStore group_store(prefix, store.get());
        ConnectRequest connect;
        connect.place = RankPlace{r, n, 0, r, n, r};
        connect.store = &group_store;
        connect.timeout = std::chrono::milliseconds(20000);
        ASSIGN_OR_RETURN(auto comm, backend->Connect(connect));
        RETURN_IF_ERROR(body(r, comm.get()));
        Status last = comm->Barrier();
        departure.LeaveTogether();
        return last;
      }();
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

Status RunAndCheck(Communicator* comm, const OpRequest& request, int rank, int n, int iters) {
  ASSIGN_OR_RETURN(auto work, comm->Prepare(request));
  std::vector<char> in, out(RecvCount(request, n) * SizeOf(request.dtype));
  for (int iter = 0; iter < iters; ++iter) {
    FillInput(request, rank, n, static_cast<uint64_t>(iter), &in);
    RETURN_IF_ERROR(work->SetInput(in.data(), in.size()));
    RETURN_IF_ERROR(work->Run());
    RETURN_IF_ERROR(work->GetOutput(out.data(), out.size()));
    Status st = CheckOutput(request, rank, n, static_cast<uint64_t>(iter), out);
    if (!st.ok()) {
      return Status(st.code(), std::string(Name(request.op)) + "/" + work->algo() + "/" +
                                   std::string(Name(request.dtype)) + "/" + std::string(Name(request.reduce)) +
                                   (request.in_place ? "/in-place" : "") + "/count=" + std::to_string(request.count) +
                                   " rank " + std::to_string(rank) + ": " + st.message());
    }
    RETURN_IF_ERROR(comm->Barrier());
  }
  return OkStatus();
}

}  // namespace testing
}  // namespace commbench
