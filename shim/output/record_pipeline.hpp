#pragma once
// Records travel from the application's threads to the log files here. Each thread
// hands its records to its own ring (no lock shared by all threads, no allocation,
// no formatting); a writer thread drains the rings, formats and writes, in the order
// the operations completed. Flushes (context destroyed, cuProfilerStop, exit, fork)
// drain synchronously.
#include <cstdint>

#include "logfmt/record.hpp"
#include "shim/output/context_log.hpp"

namespace computeprof::shim {

// Hands one record to the writer. `completed_ns`: monotonic time the operation was
// seen complete; it orders the log.
void submit_record(ContextLog* log, std::uint64_t completed_ns, const logfmt::Record& record);

// Writes every submitted record and flushes every file.
void flush_records();

// Writes every submitted record, then closes `log`'s file (its context is gone).
void retire_context_log(ContextLog* log);

}  // namespace computeprof::shim
