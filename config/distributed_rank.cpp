#include "config/distributed_rank.hpp"

#include <charconv>
#include <string_view>

namespace computeprof::config {
namespace {

struct RankVariables {
  std::string_view rank;
  std::string_view size;
};

constexpr RankVariables kLaunchers[] = {
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "PMI_SIZE"},
    {"SLURM_PROCID", "SLURM_NTASKS"},
    {"RANK", "WORLD_SIZE"},
};

std::optional<unsigned long> decimal(const std::optional<std::string>& text) {
  if (!text || text->empty() || text->size() > 9) return std::nullopt;
  unsigned long value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<DistributedRank> distributed_rank(EnvLookup lookup, void* user) {
  for (const RankVariables& launcher : kLaunchers) {
    const auto rank_text = lookup(launcher.rank, user);
    const auto size_text = lookup(launcher.size, user);
    if (!rank_text && !size_text) continue;
    const auto rank = decimal(rank_text);
    const auto size = decimal(size_text);
    if (rank && size && *rank < *size) return DistributedRank{*rank, *size};
  }
  return std::nullopt;
}

}  // namespace computeprof::config
