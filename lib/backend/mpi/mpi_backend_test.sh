#!/bin/bash
# The mpi backend under mpirun: one group of 3 ranks, then 2 groups of 2 (MPI_Comm_split per group).
set -euo pipefail
check="$(dirname "$0")/mpi_check"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none  # CMA needs ptrace rights a sandbox may lack
if [[ -n "${ASAN_OPTIONS:-}" ]]; then
  # Under --config=asan: OpenMPI's own leaks are suppressed by the frames they start from (openmpi_lsan.supp).
  export ASAN_OPTIONS="${ASAN_OPTIONS}:fast_unwind_on_malloc=0"
  export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/openmpi_lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi
mpirun -np 3 --oversubscribe --bind-to none "$check"
mpirun -np 4 --oversubscribe --bind-to none "$check" 2
echo "mpi backend: ok"
