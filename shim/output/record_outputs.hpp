#pragma once
// Every sink of the process, and which records reach which: a record goes to the sinks
// of its own context and to the process-wide ones. Sinks are made when their first
// record comes, from factories chosen by the settings (sink_factory.hpp). Not
// thread-safe: the record pipeline calls it under its drain lock only.
#include <functional>
#include <memory>
#include <vector>

#include "records/memory_event.hpp"
#include "records/memory_ledger.hpp"
#include "records/record.hpp"
#include "shim/output/record_sink.hpp"

namespace computeprof::shim {

using SinkList = std::vector<std::unique_ptr<RecordSink>>;
using ContextSinkFactory = std::function<SinkList(const ProfiledContext&)>;
using ProcessSinkFactory = std::function<SinkList()>;

class RecordOutputs {
 public:
  RecordOutputs(ContextSinkFactory context_sinks, ProcessSinkFactory process_sinks);

  // Inline: the writer calls it for every record. The common case, a record of the
  // context written last, is one loop over its route; a change of context, its first
  // record, and the first after a change of sinks, go out of line.
  void write(const ProfiledContext& context, const records::Record& record) {
    if (context.number == last_number_) [[likely]] {
      for (RecordSink* sink : *last_route_) sink->write(context, record);
    } else {
      write_and_remember(context, record);
    }
  }
  // An allocation or free, in the order the program made them: through the ledger,
  // which completes it, to the process-wide sinks.
  void write_memory(records::MemoryEvent event);
  // An NVTX event, to the process-wide sinks.
  void write_range(const records::RangeEvent& event);
  void write_api_call(const records::ApiCall& call);
  // Every sink that has begun.
  void flush();
  // The writer thread's beat: to the process-wide sinks, once begun and until they end.
  // True when one asked for every submitted record before a second beat.
  bool poll();
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
    // Every sink its records reach, in order: its own unless it ended, then the
    // process's unless they ended. Valid while `routed`: until its sinks or the
    // process's change.
    bool routed = false;
    std::vector<RecordSink*> route;
  };
  ContextSinks& of(const ProfiledContext& context);
  // The context's sinks, made and begun unless they were already or it ended.
  ContextSinks& begin_context(const ProfiledContext& context);
  void begin_process();
  // A record of a context without a route: its sinks and the process's begun where they
  // have not, each before its first record, then the route made.
  void write_and_route(const ProfiledContext& context, const records::Record& record);
  // A record of another context than the last one's: through its route, made if need be,
  // which is then the last one.
  void write_and_remember(const ProfiledContext& context, const records::Record& record);
  // After a change of routes, or of where they lie (contexts_ grew).
  void forget_last_route() { last_number_ = kNoContext; }

  ContextSinkFactory make_context_sinks_;
  ProcessSinkFactory make_process_sinks_;
  // Indexed by context number: numbers are dense from 1 (reset with everything at fork).
  std::vector<ContextSinks> contexts_;
  // The context written last, and its route: records come in runs of one context.
  static constexpr int kNoContext = -1;
  int last_number_ = kNoContext;
  const std::vector<RecordSink*>* last_route_ = nullptr;
  bool process_begun_ = false;
  bool process_ended_ = false;
  SinkList process_sinks_;
  records::MemoryLedger memory_;
};

}  // namespace computeprof::shim
