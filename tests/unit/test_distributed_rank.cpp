// distributedInfo's rank and world size, from each launcher's variables.
#include <map>
#include <string>

#include "catch.hpp"

#include "config/distributed_rank.hpp"

using namespace computeprof::config;

namespace {

std::optional<std::string> lookup(std::string_view name, void* user) {
  const auto& env = *static_cast<const std::map<std::string, std::string, std::less<>>*>(user);
  const auto it = env.find(name);
  if (it == env.end()) return std::nullopt;
  return it->second;
}

std::string rank_of(std::map<std::string, std::string, std::less<>> env) {
  const auto r = distributed_rank(lookup, &env);
  return r ? std::to_string(r->rank) + "/" + std::to_string(r->world_size) : "none";
}

}  // namespace

TEST_CASE("distributedInfo: each launcher's pair of variables", "[distributed]") {
  CHECK(rank_of({}) == "none");
  CHECK(rank_of({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"}}) == "3/8");
  CHECK(rank_of({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}) == "1/2");
  CHECK(rank_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}}) == "0/4");
  CHECK(rank_of({{"RANK", "7"}, {"WORLD_SIZE", "16"}}) == "7/16");
}

TEST_CASE("distributedInfo: the first launcher in order wins, a bad pair does not count", "[distributed]") {
  // mpirun under Slurm: Open MPI's own numbering first.
  CHECK(rank_of({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"SLURM_PROCID", "0"},
                 {"SLURM_NTASKS", "1"}}) == "2/4");
  CHECK(rank_of({{"PMI_RANK", "x"}, {"PMI_SIZE", "2"}, {"RANK", "1"}, {"WORLD_SIZE", "2"}}) == "1/2");
  CHECK(rank_of({{"RANK", "2"}, {"WORLD_SIZE", "2"}}) == "none");  // rank not below the size
  CHECK(rank_of({{"RANK", "1"}}) == "none");
  CHECK(rank_of({{"RANK", "-1"}, {"WORLD_SIZE", "2"}}) == "none");
  CHECK(rank_of({{"RANK", "1 "}, {"WORLD_SIZE", "2"}}) == "none");
  CHECK(rank_of({{"RANK", "1"}, {"WORLD_SIZE", "99999999999999999999"}}) == "none");
}
