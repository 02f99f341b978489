// Started by mpirun: connects the mpi backend as one group of the whole world (or pairs, with argv[1] = 2) and
// checks every collective x dtype x placement x reduction. Exit code 0 when all are right.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lib/backend/backend.h"
#include "lib/measure/pattern.h"

namespace commbench {
namespace {

int Main(int argc, char** argv) {
  const int world = std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE"));
  const int rank = std::atoi(std::getenv("OMPI_COMM_WORLD_RANK"));
  const int k = argc > 1 ? std::atoi(argv[1]) : world;
  auto backend = CreateBackend("mpi");
  if (!backend.ok()) return 2;
  ConnectRequest connect;
  connect.place = RankPlace{rank, world, rank / k, rank % k, k, rank};
  auto comm = (*backend)->Connect(connect);
  if (!comm.ok()) {
    std::fprintf(stderr, "rank %d: %s\n", rank, comm.status().message().c_str());
    return 1;
  }
  int failures = 0, checked = 0;
  for (Collective op : AllCollectives()) {
    for (DataType dtype : AllDataTypes()) {
      for (ReduceOp reduce : AllReduceOps()) {
        if (op == Collective::kAllgather && reduce != ReduceOp::kSum) continue;
        for (bool in_place : {false, true}) {
          for (size_t count : {size_t{0}, size_t{1}, size_t{7}, size_t{1023}}) {
            OpRequest r;
            r.op = op;
            r.dtype = dtype;
            r.reduce = reduce;
            r.in_place = in_place;
            r.count = count;
            auto work = (*comm)->Prepare(r);
            std::vector<char> in, out(RecvCount(r, k) * SizeOf(dtype));
            FillInput(r, rank % k, k, 1, &in);
            Status st = (*work)->SetInput(in.data(), in.size());
            if (st.ok()) st = (*work)->Run();
            if (st.ok()) st = (*work)->GetOutput(out.data(), out.size());
            if (st.ok()) st = CheckOutput(r, rank % k, k, 1, out);
            ++checked;
            if (!st.ok()) {
              ++failures;
              std::fprintf(stderr, "rank %d %s/%s/%s%s/count=%zu: %s\n", rank, std::string(Name(op)).c_str(),
                           std::string(Name(dtype)).c_str(), std::string(Name(reduce)).c_str(),
                           in_place ? "/in-place" : "", count, st.message().c_str());
            }
          }
        }
      }
    }
  }
  if (!(*comm)->Barrier().ok()) ++failures;
  std::printf("rank %d: %d of %d cases right\n", rank, checked - failures, checked);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace commbench

int main(int argc, char** argv) { return commbench::Main(argc, argv); }
