#pragma once
// The rank of a process in a distributed job and the job's size, as its launcher says
// them (docs/format.md, "JSON trace": distributedInfo): Open MPI's OMPI_COMM_WORLD_RANK
// and OMPI_COMM_WORLD_SIZE, MPICH/Intel MPI's PMI_RANK and PMI_SIZE, Slurm's
// SLURM_PROCID and SLURM_NTASKS, torchrun's RANK and WORLD_SIZE, the first pair of
// those that is set, in that order.
#include <optional>

#include "config/environment.hpp"

namespace computeprof::config {

struct DistributedRank {
  unsigned long rank = 0;
  unsigned long world_size = 0;
};

// Nullopt when no pair is set. A pair that is not two decimal numbers with the rank
// below the size (the variables are hostile input) does not count.
std::optional<DistributedRank> distributed_rank(EnvLookup lookup, void* user);

}  // namespace computeprof::config
