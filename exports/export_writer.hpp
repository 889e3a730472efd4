#pragma once
// An export of the whole process (docs/format.md, "Exports"): records of every context
// written into one file, in the order the process made them: a run file's records
// replayed (run_conversion.hpp). One caller, one call at a time: a writer needs no lock
// of its own.
#include "records/api_call.hpp"
#include "records/context.hpp"
#include "records/memory_event.hpp"
#include "records/memory_ledger.hpp"
#include "records/range_event.hpp"
#include "records/record.hpp"

namespace computeprof::exports {

class ExportWriter {
 public:
  virtual ~ExportWriter() = default;

  // Before its first record (a writer that never gets one creates nothing).
  virtual void begin() = 0;
  // One record, in the order operations completed.
  virtual void write(const records::ContextInfo& context, const records::Record& record) = 0;
  // One allocation or free (memtrace), in the order the program made them, completed
  // by `ledger` (a free has its allocation's bytes), which holds the memory picture up
  // to and including it.
  virtual void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) = 0;
  // One NVTX event: a mark, a range once it ended, a name or domain given; its texts
  // are ids of the run's range table (RunFacts::ranges). Not ordered with the records.
  virtual void write_range(const records::RangeEvent& event) = 0;
  // One API call (apitrace), each thread's in the order it made them. Not ordered with
  // the records.
  virtual void write_api_call(const records::ApiCall& call) = 0;
  // After each batch of records: what was written reaches the file, in a form a reader
  // can use as it stands (the writer may wait until a batch is large or old enough:
  // export_batch.hpp).
  virtual void flush() = 0;
  // Everything written so far reaches the file, whatever the batch's size or age.
  virtual void checkpoint() = 0;
  // The run ended; nothing is written after this.
  virtual void end() = 0;
};

}  // namespace computeprof::exports
