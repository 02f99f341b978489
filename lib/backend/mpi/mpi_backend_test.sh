#!/bin/bash
# The mpi backend under mpirun: one group of 3 ranks, then 2 groups of 2 (MPI_Comm_split per group).
set -euo pipefail
check="$(dirname "$0")/mpi_check"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none  # CMA needs ptrace rights a sandbox may lack
mpirun -np 3 --oversubscribe --bind-to none "$check"
mpirun -np 4 --oversubscribe --bind-to none "$check" 2
echo "mpi backend: ok"
