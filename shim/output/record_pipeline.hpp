#pragma once
// Records travel from the application's threads to the sinks here. Each thread hands
// its records to its own ring (no lock shared by all threads, no allocation, no
// formatting); a writer thread drains the rings and hands the records to the sinks
// (record_outputs.hpp), in the order the operations completed. Flushes (context
// destroyed, cuProfilerStop, exit, fork) drain synchronously.
#include <cstdint>
#include <span>

#include "records/api_call.hpp"
#include "records/memory_event.hpp"
#include "records/range_event.hpp"
#include "records/record.hpp"
#include "shim/process/context_registry.hpp"
#include "shim/process/internal_worker.hpp"
#include "shim/process/thread_rings.hpp"

namespace computeprof::shim {

// A record on its way to the writer.
struct QueuedRecord {
  const ProfiledContext* context;
  std::uint64_t completed_ns;
  records::Record record;
};

namespace detail {
// 128 records of 192 bytes: 24 KiB per thread that makes operations.
using RecordRings = ThreadRings<QueuedRecord, 128>;
// 256 NVTX events of 72 bytes: 18 KiB per thread that uses NVTX.
using RangeRings = ThreadRings<records::RangeEvent, 256>;
// 256 API calls of 72 bytes: 18 KiB per thread that calls what apitrace traces.
using ApiCallRings = ThreadRings<records::ApiCall, 256>;
// What a submission touches; record_pipeline.cpp owns the rest of the pipeline.
struct RecordQueue {
  RecordRings rings;
  RangeRings ranges;
  ApiCallRings calls;
};
// The writer thread, and the pipeline it drains (made by the first record).
extern constinit InternalWorker<RecordQueue> g_writer;
// The first record, a full ring: out of line.
[[gnu::noinline]] void submit_range_otherwise(const records::RangeEvent& event);
[[gnu::noinline]] void submit_api_call_otherwise(const records::ApiCall& call);
[[gnu::noinline]] void submit_record_otherwise(const ProfiledContext* context, std::uint64_t completed_ns,
                                               const records::Record& record);
}  // namespace detail

// Hands one record to the writer. `completed_ns`: monotonic time the operation was
// seen complete; it orders the log. Inline: once per operation, on the thread that
// completes it, whose own frame is there already.
[[gnu::always_inline]] inline void submit_record(const ProfiledContext* context, std::uint64_t completed_ns,
                                                const records::Record& record) {
  detail::RecordQueue* q = detail::g_writer.shared();
  if (q && try_submit_to<detail::g_writer>(q->rings, [&](QueuedRecord& r) {
        r.context = context;
        r.completed_ns = completed_ns;
        r.record = record;
      })) {
    return;
  }
  detail::submit_record_otherwise(context, completed_ns, record);
}

// Hands one NVTX event to the writer (shim/nvtx/), `fill(RangeEvent&)` writing it in its
// ring's slot (every field: the slot holds an earlier event). Inline: at every pop.
template <typename Fill>
[[gnu::always_inline]] inline void submit_range_event_with(Fill&& fill) {
  detail::RecordQueue* q = detail::g_writer.shared();
  if (q && try_submit_to<detail::g_writer>(q->ranges, fill)) return;
  records::RangeEvent event;
  fill(event);
  detail::submit_range_otherwise(event);
}
inline void submit_range_event(const records::RangeEvent& event) {
  submit_range_event_with([&](records::RangeEvent& e) { e = event; });
}

// Hands one API call (apitrace) to the writer, on the thread that made it.
inline void submit_api_call(const records::ApiCall& call) {
  detail::RecordQueue* q = detail::g_writer.shared();
  if (q && try_submit_to<detail::g_writer>(q->calls, [&](records::ApiCall& c) { c = call; })) return;
  detail::submit_api_call_otherwise(call);
}

// A record and what submit_record takes with it.
struct Submission {
  const ProfiledContext* context;
  std::uint64_t completed_ns;
  const records::Record* record;
};
// As submit_record for each, in order, the calling thread's ring found once: for a
// thread that completes many operations at once (timing/event_resolver.cpp).
void submit_records(std::span<const Submission> submissions);
// Starts the pipeline and makes the calling thread's ring, which its first record
// would do: for a thread that submits while others wait for it, so that its first
// submission is as quick as the next (the event resolver holds a track's lock). After
// the driver's initialisation, as a first record is.
void prepare_to_submit_records();

// Memory events (memtrace): the number that orders an event (MemoryEventQueue), then the
// event with it. `cancelled`: a free the driver refused, submitted for its number only.
std::uint64_t next_memory_sequence();
void submit_memory_event(const records::MemoryEvent& event, bool cancelled = false);

// Writes every submitted record and flushes every sink.
void flush_records();

// A part that completes operations on a thread of its own (CUPTI's activity collector)
// registers how to hand over at once, bounded, what has completed. The writer asks it
// before a flight recorder's dump, so that the dump holds every operation done before
// its trigger, however far the part's next round was. Registered once per part.
using DeliverCompleted = void (*)();
void add_completed_operations_source(DeliverCompleted deliver);

// Writes every submitted record, then ends `context`'s sinks (the context is gone).
void retire_context(const ProfiledContext* context);

}  // namespace computeprof::shim
