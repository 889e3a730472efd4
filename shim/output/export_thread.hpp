#pragma once
// A process-wide export written by a thread of its own, so that the exports of one
// process run side by side and the writer thread (which the application's threads wait
// for when their rings fill) pays only for the classic log and a copy of each record
// (docs/design.md, "Outputs").
//
// The writer copies each record and NVTX event into a queue; at its flushes the queue
// goes to the export's thread whenever that thread is idle, with the export's own flush
// after it, so the export writes one batch while the next one gathers. A queue that
// reaches kMostQueued waits for the thread: memory stays bounded, and a program that
// outruns an export is slowed down, never losing a record. Anything else (begin,
// memory events, checkpoints, the end) waits until everything queued is written, then
// runs on the calling thread: the export is never called by two threads at once and
// sees every event in the order it came. The writer's beat (poll) is not passed on: it
// is the flight recorder's, which is never on a thread of its own, and no export has
// one. Where no thread can be started, each flush writes the queue on the calling
// thread.
#include <cstddef>
#include <memory>
#include <vector>

#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class ExportThread final : public RecordSink {
 public:
  // About 1 MiB of copies, twice (the queue and the batch being written).
  static constexpr std::size_t kMostQueued = 4096;

  explicit ExportThread(std::unique_ptr<RecordSink> export_sink);
  ~ExportThread() override;
  ExportThread(const ExportThread&) = delete;
  ExportThread& operator=(const ExportThread&) = delete;

  void begin() override;
  void write(const ProfiledContext& context, const records::Record& record) override;
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  void write_range(const records::RangeEvent& event) override;
  void flush() override;
  void checkpoint() override;
  void end() override;
  void abandon() override;

  // A record (its counters its own: the pipeline frees the original's) or, without a
  // context, an NVTX event.
  struct Queued {
    const ProfiledContext* context = nullptr;
    records::Record record;
    std::unique_ptr<records::CounterValues> counters;
    records::RangeEvent range;
  };
  // What the thread and the caller share (export_thread.cpp).
  struct Shared;

 private:
  // Hands the queue to the thread, once it is idle.
  void hand_over();
  // Hands the queue to the idle thread; the caller holds its lock.
  void give_queue_locked();
  // Waits until the thread is idle, then writes what is queued here.
  void catch_up();

  std::unique_ptr<RecordSink> export_;
  std::vector<Queued> queued_;
  // Null where no thread runs (not started, or a forked child's copy of the parent's).
  Shared* shared_ = nullptr;
};

}  // namespace computeprof::shim
