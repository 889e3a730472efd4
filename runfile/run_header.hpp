#pragma once
// The run file's header (docs/format.md, "Run file"): the process that wrote it and both
// clocks at one instant, so that the files of many hosts align, and the settings the
// exports made from it follow.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/distributed_rank.hpp"

namespace computeprof::runfile {

struct RunHeader {
  std::uint16_t major = 0;  // of the file read; the writer's own when written
  std::uint16_t minor = 0;
  std::uint64_t pid = 0;
  std::string program;  // its short name (program_invocation_short_name)
  std::string host;
  std::optional<config::DistributedRank> rank;
  std::vector<std::string> command_line;
  // CLOCK_REALTIME and CLOCK_MONOTONIC at one instant, when the file was begun.
  std::uint64_t wall_ns = 0;
  std::uint64_t monotonic_ns = 0;
  // The legacy counters configured (config/counters.hpp ids), in id order.
  std::vector<std::uint16_t> counters;
  std::uint64_t export_limit = 0;  // exportlimit, bytes; 0: none
};

// The preamble (magic, this writer's version) and the header's body.
std::string encode_header(const RunHeader& header);

// What a reader found wrong, at which byte of the file.
struct RunFileError {
  std::uint64_t offset = 0;
  std::string what;
};

// The header of `file` (its first bytes at least), with the number of bytes it takes;
// an error for a file that is not a run file, a newer major version, or a header cut
// short.
struct DecodedHeader {
  RunHeader header;
  std::size_t bytes = 0;
};
std::optional<DecodedHeader> decode_header(std::string_view file, RunFileError& error);

}  // namespace computeprof::runfile
