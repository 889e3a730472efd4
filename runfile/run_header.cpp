#include "runfile/run_header.hpp"

#include <cstring>

#include <fmt/format.h>

#include "config/counters.hpp"
#include "runfile/byte_coding.hpp"
#include "runfile/format.hpp"

namespace computeprof::runfile {

namespace {

// A command line's arguments at most, and bytes of a text in the header.
constexpr std::uint64_t kMaxArguments = 4096;
constexpr std::uint64_t kMaxText = 1u << 16;

}  // namespace

std::string encode_header(const RunHeader& header) {
  std::string body;
  ByteWriter w(body);
  w.varint(header.pid);
  w.text(header.program.substr(0, kMaxText));
  w.text(header.host.substr(0, kMaxText));
  w.varint(header.rank ? header.rank->rank + 1 : 0);
  w.varint(header.rank ? header.rank->world_size : 0);
  const std::size_t arguments = std::min<std::size_t>(header.command_line.size(), kMaxArguments);
  w.varint(arguments);
  for (std::size_t i = 0; i < arguments; ++i) w.text(std::string_view(header.command_line[i]).substr(0, kMaxText));
  w.varint(header.wall_ns);
  w.varint(header.monotonic_ns);
  w.varint(header.counters.size());
  for (std::uint16_t id : header.counters) w.varint(id);
  w.varint(header.export_limit);
  // A command line past the header's bound is cut to it.
  if (body.size() > kMaxHeaderBytes) body.resize(kMaxHeaderBytes);

  std::string out(kPreambleBytes, '\0');
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  out[8] = static_cast<char>(kMajorVersion & 0xff);
  out[9] = static_cast<char>(kMajorVersion >> 8);
  out[10] = static_cast<char>(kMinorVersion & 0xff);
  out[11] = static_cast<char>(kMinorVersion >> 8);
  put_u32(out.data() + 12, static_cast<std::uint32_t>(body.size()));
  return out + body;
}

std::optional<DecodedHeader> decode_header(std::string_view file, RunFileError& error) {
  if (file.size() < sizeof kMagic || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0) {
    error = {0, "not a computeprof run file (no CPROFRUN at its start)"};
    return std::nullopt;
  }
  if (file.size() < kPreambleBytes) {
    error = {file.size(), "the header is cut short"};
    return std::nullopt;
  }
  DecodedHeader decoded;
  RunHeader& h = decoded.header;
  h.major = static_cast<std::uint16_t>(static_cast<std::uint8_t>(file[8]) | static_cast<std::uint8_t>(file[9]) << 8);
  h.minor = static_cast<std::uint16_t>(static_cast<std::uint8_t>(file[10]) | static_cast<std::uint8_t>(file[11]) << 8);
  if (h.major == 0 || h.major > kMajorVersion) {
    error = {8, fmt::format("run file version {}.{}; this computeprof reads versions 1.x to {}.x", h.major, h.minor,
                            kMajorVersion)};
    return std::nullopt;
  }
  const std::uint32_t length = get_u32(file.data() + 12);
  if (length > kMaxHeaderBytes) {
    error = {12, fmt::format("a header of {} bytes (at most {})", length, kMaxHeaderBytes)};
    return std::nullopt;
  }
  if (file.size() - kPreambleBytes < length) {
    error = {file.size(), "the header is cut short"};
    return std::nullopt;
  }
  const char* begin = file.data() + kPreambleBytes;
  ByteReader r(begin, begin + length);
  h.pid = r.varint();
  h.program = std::string(r.text());
  h.host = std::string(r.text());
  const std::uint64_t rank = r.varint();
  const std::uint64_t world_size = r.varint();
  if (rank != 0) h.rank = config::DistributedRank{rank - 1, world_size};
  const std::uint64_t arguments = r.bounded(kMaxArguments);
  for (std::uint64_t i = 0; i < arguments && !r.failed(); ++i) h.command_line.emplace_back(r.text());
  h.wall_ns = r.varint();
  h.monotonic_ns = r.varint();
  const std::uint64_t counters = r.bounded(config::kLegacyCounterCount);
  for (std::uint64_t i = 0; i < counters && !r.failed(); ++i) {
    h.counters.push_back(static_cast<std::uint16_t>(r.bounded(config::kLegacyCounterCount - 1)));
  }
  h.export_limit = r.varint();
  // What a newer minor version adds after these fields is not read.
  if (r.failed()) {
    error = {kPreambleBytes + r.failed_at(), "the header's fields run past its length"};
    return std::nullopt;
  }
  decoded.bytes = kPreambleBytes + length;
  return decoded;
}

}  // namespace computeprof::runfile
