#pragma once
// An NVTX message as the process's RangeTable knows it (records/range_table.hpp): ASCII
// and wide texts, registered strings, NULL, all bounded (kRangeNameLimit bytes kept),
// and the ids handed to the program as string and domain handles.
#include <cstdint>

#include <nvtx3/nvToolsExt.h>

#include "records/range_table.hpp"

namespace computeprof::shim {

// Registered strings and domains are handed out as their ids, not as pointers the shim
// owns: a handle costs nothing to look up, and a stale or foreign one is just a number.
inline nvtxStringHandle_t string_handle(records::RangeNameId id) {
  return reinterpret_cast<nvtxStringHandle_t>(static_cast<std::uintptr_t>(id) + 1);
}
inline records::RangeNameId name_of_handle(nvtxStringHandle_t handle) {
  const auto value = reinterpret_cast<std::uintptr_t>(handle);
  return value == 0 || value > records::RangeTable::kCapacity ? 0 : static_cast<records::RangeNameId>(value - 1);
}
inline nvtxDomainHandle_t domain_handle(records::RangeDomainId id) {
  return reinterpret_cast<nvtxDomainHandle_t>(static_cast<std::uintptr_t>(id));
}
inline records::RangeDomainId domain_of_handle(nvtxDomainHandle_t handle) {
  const auto value = reinterpret_cast<std::uintptr_t>(handle);
  return value > records::RangeTable::kCapacity ? 0 : static_cast<records::RangeDomainId>(value);
}

// The id of an ASCII message; NULL is the empty name. Per thread, a message met before
// at the same address costs a comparison, no lock.
records::RangeNameId ascii_name(const char* message);
// The id of a wide message, as UTF-8 (each invalid code point U+FFFD).
records::RangeNameId wide_name(const wchar_t* message);
// The message of an event's attributes (any message type; NULL attributes: empty).
records::RangeNameId attributes_name(const nvtxEventAttributes_t* attributes);

}  // namespace computeprof::shim
