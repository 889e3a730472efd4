#include "shim/output/record_outputs.hpp"

#include "shim/output/log_paths.hpp"

namespace computeprof::shim {

RecordOutputs::RecordOutputs(ContextSinkFactory context_sinks, ProcessSinkFactory process_sinks)
    : make_context_sinks_(std::move(context_sinks)), make_process_sinks_(std::move(process_sinks)) {}

RecordOutputs::ContextSinks& RecordOutputs::of(const ProfiledContext& context) {
  const auto index = static_cast<std::size_t>(context.number);
  if (contexts_.size() <= index) {
    contexts_.resize(index + 1);
    forget_last_route();
  }
  return contexts_[index];
}

RecordOutputs::ContextSinks& RecordOutputs::begin_context(const ProfiledContext& context) {
  ContextSinks& c = of(context);
  if (!c.begun && !c.ended) {
    c.sinks = make_context_sinks_(context);
    for (auto& sink : c.sinks) sink->begin();
    c.begun = true;
  }
  return c;
}

void RecordOutputs::write_and_route(const ProfiledContext& context, const records::Record& record) {
  ContextSinks& c = begin_context(context);
  c.route.clear();
  if (!c.ended) {
    for (auto& sink : c.sinks) {
      sink->write(context, record);
      c.route.push_back(sink.get());
    }
  }
  if (!process_ended_) {
    begin_process();
    for (auto& sink : process_sinks_) {
      sink->write(context, record);
      c.route.push_back(sink.get());
    }
  }
  c.routed = true;
}

void RecordOutputs::write_and_remember(const ProfiledContext& context, const records::Record& record) {
  const auto index = static_cast<std::size_t>(context.number);
  if (index < contexts_.size() && contexts_[index].routed) {
    for (RecordSink* sink : contexts_[index].route) sink->write(context, record);
  } else {
    write_and_route(context, record);
  }
  last_number_ = context.number;
  last_route_ = &contexts_[index].route;
}

void RecordOutputs::begin_process() {
  if (process_begun_) return;
  process_sinks_ = make_process_sinks_();
  for (auto& sink : process_sinks_) sink->begin();
  process_begun_ = true;
}

void RecordOutputs::write_memory(records::MemoryEvent event) {
  if (process_ended_) return;
  begin_process();
  memory_.apply(event);
  for (auto& sink : process_sinks_) sink->write_memory(event, memory_);
}

void RecordOutputs::write_range(const records::RangeEvent& event) {
  if (process_ended_) return;
  begin_process();
  for (auto& sink : process_sinks_) sink->write_range(event);
}

void RecordOutputs::write_api_call(const records::ApiCall& call) {
  if (process_ended_) return;
  begin_process();
  for (auto& sink : process_sinks_) sink->write_api_call(call);
}

bool RecordOutputs::poll() {
  if (!process_begun_ || process_ended_) return false;
  bool drain_first = false;
  for (auto& sink : process_sinks_) drain_first |= sink->poll() == RecordSink::PollNeed::drain_first;
  return drain_first;
}

void RecordOutputs::checkpoint() {
  flush();
  for (auto& sink : process_sinks_) sink->checkpoint();
}

void RecordOutputs::flush() {
  for (ContextSinks& c : contexts_) {
    if (c.begun && !c.ended) {
      for (auto& sink : c.sinks) sink->flush();
    }
  }
  for (auto& sink : process_sinks_) sink->flush();
}

void RecordOutputs::end_context(const ProfiledContext& context) {
  ContextSinks& c = of(context);
  if (c.begun && !c.ended) {
    for (auto& sink : c.sinks) sink->end();
  }
  c.ended = true;
  // The sinks' memory goes; their files are closed.
  c.sinks.clear();
  c.routed = false;
  forget_last_route();
  for (auto& sink : process_sinks_) sink->flush();
}

void RecordOutputs::end_process() {
  if (process_ended_) return;
  process_ended_ = true;
  for (auto& sink : process_sinks_) sink->end();
  for (ContextSinks& c : contexts_) c.routed = false;
  forget_last_route();
}

void RecordOutputs::abandon() {
  for (ContextSinks& c : contexts_) {
    for (auto& sink : c.sinks) sink->abandon();
  }
  for (auto& sink : process_sinks_) sink->abandon();
  contexts_.clear();
  forget_last_route();
  process_sinks_.clear();
  process_begun_ = false;
  process_ended_ = false;
  memory_ = records::MemoryLedger{};
  log_paths().clear();
}

}  // namespace computeprof::shim
