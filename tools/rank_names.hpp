#pragma once
// Which rank of a distributed job each input of `computeprof stats --ranks` belongs to
// (docs/format.md, "Stats output"): the rank the file records, else a rank number in
// its file name, else the file itself.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace computeprof::tools {

struct RankName {
  std::optional<std::uint64_t> number;  // a rank number; nullopt: named by `file`
  std::string file;                     // the path as given, for a rank without a number

  bool operator==(const RankName&) const = default;
  // Numbered ranks first, by number, then the others by path.
  bool operator<(const RankName& other) const;
  // The number, or the path.
  std::string text() const;
};

// The rank of each of `paths`; `recorded[i]` is the rank file i records, if it does.
std::vector<RankName> name_ranks(const std::vector<std::string>& paths,
                                 const std::vector<std::optional<std::uint64_t>>& recorded);

}  // namespace computeprof::tools
