#include "shim/output/export_thread.hpp"

#include <condition_variable>
#include <mutex>

#include "shim/process/lifecycle.hpp"

namespace computeprof::shim {

// Made with the thread, which frees it when told to stop: the sink can go first.
struct ExportThread::Shared {
  std::mutex mutex;
  std::condition_variable changed;
  bool work = false;  // a batch handed over and not yet done
  bool stop = false;
  RecordSink* export_sink = nullptr;
  const std::vector<Placed>* batch = nullptr;
};

namespace {

void write_batch(RecordSink& sink, const std::vector<ExportThread::Placed>& batch) {
  for (const ExportThread::Placed& p : batch) sink.write(*p.context, *p.record);
}

void* run_export(void* argument) {
  auto* shared = static_cast<ExportThread::Shared*>(argument);
  std::unique_lock lock(shared->mutex);
  for (;;) {
    shared->changed.wait(lock, [&] { return shared->work || shared->stop; });
    if (shared->stop) break;
    lock.unlock();
    write_batch(*shared->export_sink, *shared->batch);
    shared->export_sink->flush();
    lock.lock();
    shared->work = false;
    shared->changed.notify_all();
  }
  lock.unlock();
  delete shared;
  return nullptr;
}

}  // namespace

ExportThread::ExportThread(std::unique_ptr<RecordSink> export_sink) : export_(std::move(export_sink)) {}

ExportThread::~ExportThread() {
  if (!shared_) return;
  settle();
  // Told under the lock: the thread frees what it shares once it sees `stop`.
  std::lock_guard lock(shared_->mutex);
  shared_->stop = true;
  shared_->changed.notify_all();
}

void ExportThread::begin() {
  export_->begin();
  auto* shared = new Shared;
  shared->export_sink = export_.get();
  shared->batch = &batch_;
  if (start_internal_thread("cprof-export", run_export, shared)) {
    shared_ = shared;
  } else {
    delete shared;
  }
}

void ExportThread::flush() {
  if (!shared_) {
    write_batch(*export_, batch_);
    batch_.clear();
    export_->flush();
    return;
  }
  {
    std::lock_guard lock(shared_->mutex);
    shared_->work = true;
  }
  shared_->changed.notify_all();
  handed_ = true;
}

void ExportThread::settle() {
  if (!handed_) return;
  std::unique_lock lock(shared_->mutex);
  shared_->changed.wait(lock, [&] { return !shared_->work; });
  handed_ = false;
  batch_.clear();
}

void ExportThread::catch_up() {
  settle();
  write_batch(*export_, batch_);
  batch_.clear();
}

void ExportThread::write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) {
  catch_up();
  export_->write_memory(event, ledger);
}

void ExportThread::write_range(const records::RangeEvent& event) {
  catch_up();
  export_->write_range(event);
}

void ExportThread::checkpoint() {
  catch_up();
  export_->checkpoint();
}

void ExportThread::poll() {
  catch_up();
  export_->poll();
}

void ExportThread::end() {
  catch_up();
  export_->end();
}

void ExportThread::abandon() {
  // The thread is the parent's: in the child it does not exist, and what it shared is
  // left as it is (a lock in it may be in any state).
  shared_ = nullptr;
  handed_ = false;
  batch_.clear();
  export_->abandon();
}

}  // namespace computeprof::shim
