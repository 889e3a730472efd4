#pragma once
// Records travel from the application's threads to the sinks here. Each thread hands
// its records to its own ring (no lock shared by all threads, no allocation, no
// formatting); a writer thread drains the rings and hands the records to the sinks
// (record_outputs.hpp), in the order the operations completed. Flushes (context
// destroyed, cuProfilerStop, exit, fork) drain synchronously.
#include <cstdint>
#include <span>

#include "logfmt/memory_event.hpp"
#include "logfmt/record.hpp"
#include "shim/process/context_registry.hpp"

namespace computeprof::shim {

// Hands one record to the writer. `completed_ns`: monotonic time the operation was
// seen complete; it orders the log.
void submit_record(const ProfiledContext* context, std::uint64_t completed_ns, const logfmt::Record& record);

// A record and what submit_record takes with it.
struct Submission {
  const ProfiledContext* context;
  std::uint64_t completed_ns;
  const logfmt::Record* record;
};
// As submit_record for each, in order, the calling thread's ring found once: for a
// thread that completes many operations at once (timing/event_resolver.cpp).
void submit_records(std::span<const Submission> submissions);

// Memory events (memtrace): the number that orders an event (MemoryEventQueue), then the
// event with it. `cancelled`: a free the driver refused, submitted for its number only.
std::uint64_t next_memory_sequence();
void submit_memory_event(const logfmt::MemoryEvent& event, bool cancelled = false);

// Writes every submitted record and flushes every sink.
void flush_records();

// Writes every submitted record, then ends `context`'s sinks (the context is gone).
void retire_context(const ProfiledContext* context);

}  // namespace computeprof::shim
