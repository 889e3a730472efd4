#pragma once
// What a copy is in the log's terms: method name, memtransferdir, host memory type;
// from where its two ends live (docs/format.md, "Methods and directions").
#include <cstdint>
#include <optional>
#include <string_view>

#include "records/record.hpp"

namespace computeprof::records {

enum class MemorySide : std::uint8_t { pageable_host, pinned_host, device, array };

struct CopyKind {
  std::string_view method;  // string literal
  TransferDir dir;
  std::optional<HostMemType> host_mem_type;  // copies with a host end
};

CopyKind classify_copy(MemorySide src, MemorySide dst, bool async);
// Between two contexts (cuMemcpyPeer, cuMemcpy3DPeer across contexts).
CopyKind peer_copy(bool async);

// The ends of a copy as its method names them: "memcpyHtoDasync" is host to device.
enum class CopyEnd : std::uint8_t { host, device, array, peer };
struct CopyEnds {
  CopyEnd source;
  CopyEnd destination;
  friend bool operator==(const CopyEnds&, const CopyEnds&) = default;
};
// Empty for a method that is not a copy's.
std::optional<CopyEnds> copy_ends(std::string_view method);

}  // namespace computeprof::records
