#pragma once
// A process-wide export written by a thread of its own, so that the exports of one
// process run side by side and the writer thread (which the application's threads wait
// for when their rings fill) pays only for the classic log and for handing records on
// (docs/design.md, "Sinks").
//
// A batch's records reach it on the writer thread as places only: they stay in the
// rings' slots, which the writer releases once every sink settled (settle). Its flush
// hands the batch and the export's own flush to its thread and returns; settle waits
// for them. Everything else (begin, NVTX and memory events, checkpoints, the beat, the
// end) runs on the calling thread once the export's thread is idle: the export is never
// called by two threads at once, and sees every event in the order it came. Where no
// thread can be started, the batch is written in flush, on the calling thread.
#include <memory>
#include <vector>

#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

class ExportThread final : public RecordSink {
 public:
  explicit ExportThread(std::unique_ptr<RecordSink> export_sink);
  ~ExportThread() override;
  ExportThread(const ExportThread&) = delete;
  ExportThread& operator=(const ExportThread&) = delete;

  void begin() override;
  // Inline: the writer calls it for every record.
  void write(const ProfiledContext& context, const records::Record& record) override {
    if (handed_) [[unlikely]] settle();
    batch_.push_back({&context, &record});
  }
  void write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) override;
  void write_range(const records::RangeEvent& event) override;
  void flush() override;
  void settle() override;
  void checkpoint() override;
  void poll() override;
  void end() override;
  void abandon() override;

  // What the thread and the caller share (export_thread.cpp).
  struct Shared;
  struct Placed {
    const ProfiledContext* context;
    const records::Record* record;
  };

 private:
  // The thread is idle and the batch written: the export may be called here.
  void catch_up();

  std::unique_ptr<RecordSink> export_;
  std::vector<Placed> batch_;
  // Null where no thread runs (not started, or a forked child's copy of the parent's).
  Shared* shared_ = nullptr;
  bool handed_ = false;  // a flush was handed to the thread and not yet settled
};

}  // namespace computeprof::shim
