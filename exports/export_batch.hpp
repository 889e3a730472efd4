#pragma once
// How often the exports write through (docs/format.md, "Exports"): the conversion hands
// them a batch of records at a time; writing each batch through (a file write and its
// closing part, a database transaction) costs more than the records. They write
// through once a batch is this large or this old.
#include <chrono>
#include <cstddef>

namespace computeprof::exports {

// Bytes of JSON events, rows of a database.
inline constexpr std::size_t kExportBatchBytes = 1 << 20;
inline constexpr std::size_t kExportBatchRows = 8192;
// What a process killed between flush points loses at most, beside the batch in flight.
inline constexpr auto kExportBatchAge = std::chrono::milliseconds(500);

// Whether a batch of `size` (of `limit`) begun after `since` is due.
inline bool export_batch_due(std::size_t size, std::size_t limit, std::chrono::steady_clock::time_point since) {
  return size >= limit || (size > 0 && std::chrono::steady_clock::now() - since >= kExportBatchAge);
}

}  // namespace computeprof::exports
