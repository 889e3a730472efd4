#include "shim/output/export_thread.hpp"

#include <condition_variable>
#include <mutex>

#include "shim/process/lifecycle.hpp"

namespace computeprof::shim {

// Made with the thread, which frees it when told to stop: the export may go first.
struct ExportThread::Shared {
  std::mutex mutex;
  std::condition_variable changed;
  bool busy = false;  // `batch` was handed over and is not yet written
  bool stop = false;
  RecordSink* export_sink = nullptr;
  std::vector<Queued> batch;  // the thread's while busy
};

namespace {

void write_queued(RecordSink& sink, std::vector<ExportThread::Queued>& queued) {
  for (const ExportThread::Queued& q : queued) {
    if (q.context) {
      sink.write(*q.context, q.record);
    } else {
      sink.write_range(q.range);
    }
  }
  queued.clear();
}

void* run_export(void* argument) {
  auto* shared = static_cast<ExportThread::Shared*>(argument);
  std::unique_lock lock(shared->mutex);
  for (;;) {
    shared->changed.wait(lock, [&] { return shared->busy || shared->stop; });
    if (shared->stop) break;
    lock.unlock();
    write_queued(*shared->export_sink, shared->batch);
    shared->export_sink->flush();
    lock.lock();
    shared->busy = false;
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
  catch_up();
  // Told under the lock: the thread frees what it shares once it sees `stop`.
  std::lock_guard lock(shared_->mutex);
  shared_->stop = true;
  shared_->changed.notify_all();
}

void ExportThread::begin() {
  export_->begin();
  auto* shared = new Shared;
  shared->export_sink = export_.get();
  shared->batch.reserve(kMostQueued);
  if (start_internal_thread("cprof-export", run_export, shared)) {
    shared_ = shared;
    queued_.reserve(kMostQueued);
  } else {
    delete shared;
  }
}

void ExportThread::write(const ProfiledContext& context, const records::Record& record) {
  Queued& q = queued_.emplace_back();
  q.context = &context;
  q.record = record;
  if (record.counters) {
    q.counters = std::make_unique<records::CounterValues>(*record.counters);
    q.record.counters = q.counters.get();
  }
  if (queued_.size() >= kMostQueued) hand_over();
}

void ExportThread::write_range(const records::RangeEvent& event) {
  queued_.emplace_back().range = event;
  if (queued_.size() >= kMostQueued) hand_over();
}

void ExportThread::hand_over() {
  if (!shared_) {
    write_queued(*export_, queued_);
    return;
  }
  std::unique_lock lock(shared_->mutex);
  shared_->changed.wait(lock, [&] { return !shared_->busy; });
  give_queue_locked();
}

void ExportThread::give_queue_locked() {
  // The batch's slots (empty, their capacity kept) become the next queue.
  queued_.swap(shared_->batch);
  shared_->busy = true;
  shared_->changed.notify_all();
}

void ExportThread::flush() {
  if (!shared_) {
    write_queued(*export_, queued_);
    export_->flush();
    return;
  }
  // Only to an idle thread: a busy one flushes after its batch, and the queue goes at
  // a later flush (or once it is full).
  std::lock_guard lock(shared_->mutex);
  if (!shared_->busy) give_queue_locked();
}

void ExportThread::catch_up() {
  if (shared_) {
    std::unique_lock lock(shared_->mutex);
    shared_->changed.wait(lock, [&] { return !shared_->busy; });
  }
  write_queued(*export_, queued_);
}

void ExportThread::write_memory(const records::MemoryEvent& event, const records::MemoryLedger& ledger) {
  // The ledger is the memory picture as of this event: written now, after what came before.
  catch_up();
  export_->write_memory(event, ledger);
}

void ExportThread::checkpoint() {
  catch_up();
  export_->checkpoint();
}

void ExportThread::end() {
  catch_up();
  export_->end();
}

void ExportThread::abandon() {
  // The thread is the parent's: in the child it does not exist, and what it shared is
  // left as it is (a lock in it may be in any state).
  shared_ = nullptr;
  queued_.clear();
  export_->abandon();
}

}  // namespace computeprof::shim
