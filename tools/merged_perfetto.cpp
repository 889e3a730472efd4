#include "tools/merged_perfetto.hpp"

#include <cmath>
#include <cstdlib>
#include <functional>

#include <fmt/format.h>

namespace computeprof::tools {

using traces::PerfettoArg;
using traces::PerfettoEvent;
using traces::PerfettoEventType;

MergedPerfetto::MergedPerfetto(std::string& out, std::int64_t earliest_ns) : out_(out), earliest_ns_(earliest_ns) {
  // Ranks of several hosts share no monotonic clock: the wall clock only.
  traces::append_clock_anchor(out_, 1, static_cast<std::uint64_t>(earliest_ns), 0);
}

void MergedPerfetto::begin_rank(Rank rank) {
  rank_ = std::move(rank);
  processes_.clear();
  threads_.clear();
  rank_uuid_ = next_uuid_++;
  traces::append_process_track(out_, rank_uuid_, static_cast<std::uint64_t>(rank_.pid), rank_.name);
}

std::uint64_t MergedPerfetto::process_track(std::int64_t pid) {
  if (pid == rank_.pid) return rank_uuid_;
  auto [it, added] = processes_.try_emplace(pid);
  if (added) {
    it->second = next_uuid_++;
    const auto name = rank_.process_names.find(pid);
    traces::append_named_track(out_, it->second, rank_uuid_,
                               name != rank_.process_names.end() ? name->second : fmt::format("process {}", pid));
  }
  return it->second;
}

std::uint64_t MergedPerfetto::thread_track(std::int64_t pid, std::int64_t tid) {
  auto [it, added] = threads_.try_emplace({pid, tid});
  if (added) {
    it->second = next_uuid_++;
    const auto named = rank_.thread_names.find({pid, tid});
    const std::string name = named != rank_.thread_names.end() ? named->second : std::string();
    if (pid == rank_.pid) {
      traces::append_thread_track(out_, it->second, rank_uuid_, static_cast<std::uint64_t>(pid),
                                  static_cast<std::uint64_t>(tid), name);
    } else {
      const std::uint64_t parent = process_track(pid);
      traces::append_named_track(out_, it->second, parent, name.empty() ? fmt::format("thread {}", tid) : name);
    }
  }
  return it->second;
}

void MergedPerfetto::make_args(const JsonValue* args) {
  args_.clear();
  texts_.clear();
  if (args == nullptr || args->kind != JsonValue::Kind::object) return;
  // The texts first: args_ points into them.
  texts_.reserve(args->members.size());
  for (const JsonMember& m : args->members) {
    std::string text;
    if (m.value.kind == JsonValue::Kind::string) {
      text = m.value.text;
    } else if (m.value.kind != JsonValue::Kind::number) {
      append_json(text, m.value);
    }
    texts_.push_back(std::move(text));
  }
  for (std::size_t i = 0; i < args->members.size(); ++i) {
    const JsonMember& m = args->members[i];
    if (m.value.kind != JsonValue::Kind::number) {
      args_.push_back(PerfettoArg::of_text(m.name, texts_[i]));
    } else if (const auto n = m.value.integer()) {
      args_.push_back(*n < 0 ? PerfettoArg::of_signed(m.name, *n) : PerfettoArg::of(m.name, static_cast<std::uint64_t>(*n)));
    } else {
      args_.push_back(PerfettoArg::of_real(m.name, std::strtod(m.value.text.c_str(), nullptr)));
    }
  }
}

void MergedPerfetto::event(const JsonValue& e, std::optional<std::int64_t> ts_ns, std::optional<std::int64_t> dur_ns) {
  const auto ph = e.string_member("ph").value_or("");
  const JsonValue* pid_value = e.find("pid");
  if (ph == "M" || !ts_ns || pid_value == nullptr) return;
  const std::int64_t pid = pid_value->integer().value_or(0);
  const JsonValue* tid_value = e.find("tid");
  const std::int64_t tid = tid_value != nullptr ? tid_value->integer().value_or(0) : 0;
  const std::string name(e.string_member("name").value_or(""));
  const std::string category(e.string_member("cat").value_or(""));
  // Before the earliest anchor (an aligned rank moved back): at the anchor.
  const auto at = static_cast<std::uint64_t>(std::max<std::int64_t>(earliest_ns_ + *ts_ns, 0));
  const JsonValue* id = e.find("id");
  const std::string id_text = id != nullptr ? id->text : std::string();

  if (ph == "X" || ph == "i") {
    make_args(e.find("args"));
    PerfettoEvent begin =
        PerfettoEvent::at(ph == "X" ? PerfettoEventType::slice_begin : PerfettoEventType::instant, at, thread_track(pid, tid));
    begin.name = name;
    begin.category = category;
    begin.args = args_;
    sequence_.append(out_, begin);
    if (ph == "X") {
      const auto end = at + static_cast<std::uint64_t>(std::max<std::int64_t>(dur_ns.value_or(0), 0));
      sequence_.append(out_, PerfettoEvent::at(PerfettoEventType::slice_end, end, begin.track));
    }
  } else if (ph == "b" || ph == "e") {
    auto [it, added] = async_tracks_.try_emplace({pid, category, id_text});
    if (added) {
      it->second = next_uuid_++;
      traces::append_named_track(out_, it->second, process_track(pid), name);
    }
    if (ph == "b") {
      make_args(e.find("args"));
      PerfettoEvent begin = PerfettoEvent::at(PerfettoEventType::slice_begin, at, it->second);
      begin.name = name;
      begin.category = category;
      begin.args = args_;
      sequence_.append(out_, begin);
    } else {
      sequence_.append(out_, PerfettoEvent::at(PerfettoEventType::slice_end, at, it->second));
      async_tracks_.erase(it);
    }
  } else if (ph == "s" || ph == "f") {
    // A flow's ends as instants where the JSON trace has them (its end inside the GPU
    // event it binds to): the events it binds to were written before it.
    const std::uint64_t flow = id != nullptr && id->kind == JsonValue::Kind::number
                                   ? std::strtoull(id_text.c_str(), nullptr, 10) + 1
                                   : std::hash<std::string>{}(id_text) | 1;
    PerfettoEvent end = PerfettoEvent::at(PerfettoEventType::instant, at, thread_track(pid, tid));
    end.name = name;
    end.category = category;
    (ph == "s" ? end.flow_id : end.terminating_flow_id) = flow;
    sequence_.append(out_, end);
  } else if (ph == "C") {
    const JsonValue* args = e.find("args");
    if (args == nullptr || args->kind != JsonValue::Kind::object) return;
    for (const JsonMember& series : args->members) {
      if (series.value.kind != JsonValue::Kind::number) continue;
      auto [it, added] = counter_tracks_.try_emplace({pid, name, series.name});
      if (added) {
        it->second = next_uuid_++;
        traces::append_counter_track(out_, it->second, process_track(pid), name + ": " + series.name,
                                     name.find("(bytes)") != std::string::npos);
      }
      PerfettoEvent counter = PerfettoEvent::at(PerfettoEventType::counter, at, it->second);
      counter.counter_value = std::llround(std::strtod(series.value.text.c_str(), nullptr));
      sequence_.append(out_, counter);
    }
  }
}

}  // namespace computeprof::tools
