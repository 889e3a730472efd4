#pragma once
// Where records go: every output (the classic logs, and any export) is a sink that
// records flow to, in the spirit of Kineto's ActivityLogger. A sink serves one context
// (the classic logs: a file per context) or the whole process (exports: one file with
// every context). The record pipeline's writer thread is its only caller, one call at
// a time: a sink needs no lock of its own.
#include "records/api_call.hpp"
#include "records/memory_event.hpp"
#include "records/memory_ledger.hpp"
#include "records/range_event.hpp"
#include "records/record.hpp"
#include "shim/process/context_registry.hpp"

namespace computeprof::shim {

class RecordSink {
 public:
  virtual ~RecordSink() = default;

  // Before its first record (a sink that never gets one creates nothing).
  virtual void begin() = 0;
  // One record, in the order operations completed.
  virtual void write(const ProfiledContext& context, const records::Record& record) = 0;
  // One allocation or free (memtrace; process-wide sinks only), in the order the
  // program made them, completed by `ledger` (a free has its allocation's bytes), which
  // holds the memory picture up to and including it.
  virtual void write_memory(const records::MemoryEvent& /*event*/, const records::MemoryLedger& /*ledger*/) {}
  // One NVTX event (process-wide sinks only): a mark, a range once it ended, a name or
  // domain given; its texts are ids of records::range_table(). Not ordered with the
  // records: a range's operations may come before or after it.
  virtual void write_range(const records::RangeEvent& /*event*/) {}
  // One API call (apitrace; process-wide sinks only), each thread's in the order it
  // made them. Not ordered with the records.
  virtual void write_api_call(const records::ApiCall& /*call*/) {}
  // After each batch of records: what was written reaches the file, in a form a reader
  // can use as it stands.
  virtual void flush() = 0;
  // A flush point the program made (a context ends, cuProfilerStop, fork): also what a
  // sink writes only now and then (the memory report) is brought up to date.
  virtual void checkpoint() {}
  // What a sink's beat needs before it can act.
  enum class PollNeed : unsigned char {
    nothing,
    // Every record submitted so far, then a second beat (a flight recorder's dump: its
    // trigger file appeared after records the rings may still hold).
    drain_first,
  };
  // The writer thread's beat (every 20 ms or so, whether records came or not; not at
  // flushes): process-wide sinks only.
  virtual PollNeed poll() { return PollNeed::nothing; }
  // The sink's context ended (per-context sinks); nothing is written after this.
  virtual void end() = 0;
  // In a forked child: lets go of the parent's output without writing to it; the sink
  // is destroyed next, and its destructor must not touch that output either.
  virtual void abandon() = 0;
};

}  // namespace computeprof::shim
