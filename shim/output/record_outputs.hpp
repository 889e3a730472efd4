#pragma once
// Every sink of the process, and which records reach which: a record goes to the sinks
// of its own context and to the process-wide ones. Sinks are made when their first
// record comes, from factories chosen by the settings (sink_factory.hpp). Not
// thread-safe: the record pipeline calls it under its drain lock only.
#include <functional>
#include <memory>
#include <vector>

#include "logfmt/memory_event.hpp"
#include "logfmt/memory_ledger.hpp"
#include "logfmt/record.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

using SinkList = std::vector<std::unique_ptr<RecordSink>>;
using ContextSinkFactory = std::function<SinkList(const ProfiledContext&)>;
using ProcessSinkFactory = std::function<SinkList()>;

class RecordOutputs {
 public:
  RecordOutputs(ContextSinkFactory context_sinks, ProcessSinkFactory process_sinks);

  // Inline: the writer calls it for every record. The common case (the context's sinks
  // begun, the process's too) is a few tests; making and beginning sinks is out of line.
  void write(const ProfiledContext& context, const logfmt::Record& record) {
    const auto index = static_cast<std::size_t>(context.number);
    ContextSinks& c = index < contexts_.size() && contexts_[index].begun ? contexts_[index] : begin_context(context);
    if (!c.ended) {
      for (auto& sink : c.sinks) sink->write(context, record);
    }
    if (process_ended_) return;
    if (!process_begun_) begin_process();
    for (auto& sink : process_sinks_) sink->write(context, record);
  }
  // An allocation or free, in the order the program made them: through the ledger,
  // which completes it, to the process-wide sinks.
  void write_memory(logfmt::MemoryEvent event);
  // Every sink that has begun.
  void flush();
  // A flush point the program made: flush, and the process-wide sinks' checkpoint.
  void checkpoint();
  // `context` ended: its sinks end; later records of it are dropped.
  void end_context(const ProfiledContext& context);
  // The process ends: the process-wide sinks end (once; later records reach only the
  // contexts' sinks).
  void end_process();
  // A forked child: every sink lets go of the parent's output; the child starts afresh.
  void abandon();

 private:
  struct ContextSinks {
    bool begun = false;
    bool ended = false;
    SinkList sinks;
  };
  ContextSinks& of(const ProfiledContext& context);
  // The context's sinks, made and begun unless they were already or it ended.
  ContextSinks& begin_context(const ProfiledContext& context);
  void begin_process();

  ContextSinkFactory make_context_sinks_;
  ProcessSinkFactory make_process_sinks_;
  // Indexed by context number: numbers are dense from 1 (reset with everything at fork).
  std::vector<ContextSinks> contexts_;
  bool process_begun_ = false;
  bool process_ended_ = false;
  SinkList process_sinks_;
  logfmt::MemoryLedger memory_;
};

}  // namespace computeprof::shim
