#include "records/copy_kind.hpp"

namespace computeprof::records {
namespace {

enum class End : std::uint8_t { host, device, array };

End end_of(MemorySide s) {
  switch (s) {
    case MemorySide::pageable_host:
    case MemorySide::pinned_host: return End::host;
    case MemorySide::device: return End::device;
    case MemorySide::array: return End::array;
  }
  return End::device;
}

struct Names {
  std::string_view sync, async;
};

// Indexed [src][dst] by End.
constexpr Names kNames[3][3] = {
    {{"memcpyHtoH", "memcpyHtoHasync"}, {"memcpyHtoD", "memcpyHtoDasync"}, {"memcpyHtoA", "memcpyHtoAasync"}},
    {{"memcpyDtoH", "memcpyDtoHasync"}, {"memcpyDtoD", "memcpyDtoDasync"}, {"memcpyDtoA", "memcpyDtoAasync"}},
    {{"memcpyAtoH", "memcpyAtoHasync"}, {"memcpyAtoD", "memcpyAtoDasync"}, {"memcpyAtoA", "memcpyAtoAasync"}},
};

HostMemType host_type(MemorySide s) {
  return s == MemorySide::pinned_host ? HostMemType::page_locked : HostMemType::pageable;
}

}  // namespace

CopyKind classify_copy(MemorySide src, MemorySide dst, bool async) {
  const End s = end_of(src), d = end_of(dst);
  const Names& names = kNames[static_cast<int>(s)][static_cast<int>(d)];
  CopyKind kind{async ? names.async : names.sync, TransferDir::device_to_device, std::nullopt};
  if (s == End::host && d == End::host) {
    kind.dir = TransferDir::host_to_host;
    // Page-locked only when both ends are.
    kind.host_mem_type = host_type(src) == HostMemType::page_locked && host_type(dst) == HostMemType::page_locked
                             ? HostMemType::page_locked
                             : HostMemType::pageable;
  } else if (s == End::host) {
    kind.dir = TransferDir::host_to_device;
    kind.host_mem_type = host_type(src);
  } else if (d == End::host) {
    kind.dir = TransferDir::device_to_host;
    kind.host_mem_type = host_type(dst);
  }
  return kind;
}

std::optional<CopyEnds> copy_ends(std::string_view method) {
  constexpr std::string_view kPrefix = "memcpy";
  if (!method.starts_with(kPrefix) || method.size() < kPrefix.size() + 4 || method[kPrefix.size() + 1] != 't') {
    return std::nullopt;
  }
  auto end = [](char c) -> std::optional<CopyEnd> {
    switch (c) {
      case 'H': return CopyEnd::host;
      case 'D': return CopyEnd::device;
      case 'A': return CopyEnd::array;
      case 'P': return CopyEnd::peer;
      default: return std::nullopt;
    }
  };
  const auto source = end(method[kPrefix.size()]);
  const auto destination = end(method[kPrefix.size() + 3]);
  if (!source || !destination) return std::nullopt;
  return CopyEnds{*source, *destination};
}

CopyKind peer_copy(bool async) {
  return {async ? "memcpyPtoPasync" : "memcpyPtoP", TransferDir::peer, std::nullopt};
}

}  // namespace computeprof::records
