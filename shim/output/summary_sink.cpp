#include "shim/output/summary_sink.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include "records/range_table.hpp"

namespace computeprof::shim {

void SummarySink::write(const ProfiledContext& context, const records::Record& record) {
  // A graph launched as a whole keeps its device busy; OpenCL devices are numbered
  // apart from CUDA's and make no traced call.
  if (traces_api_calls_ && context.api == config::Api::cuda) {
    idle_.add_operation(context.device, reports::idle_operation(context, record));
  }
  if (traces_api_calls_) api_calls_.add_operation_call(record);
  // A graph launch timed as a whole is no one GPU activity.
  if (record.kind == records::RecordKind::graph) return;
  summary_.add(record.method, record.gputime_ns);
  if (record.range_path != 0) ranges_.add_gpu_time(range_names(record.range_path), record.gputime_ns);
}

const std::vector<std::string>& SummarySink::range_names(std::uint32_t path) {
  auto [it, inserted] = path_names_.try_emplace(path);
  if (!inserted) return it->second;
  const auto& table = records::range_table();
  for (std::uint32_t p = path; p != 0; p = table.step(p).parent) {
    const records::RangePathStep step = table.step(p);
    it->second.insert(it->second.begin(), table.qualified_name(step.domain, step.name));
  }
  return it->second;
}

void SummarySink::write_memory(const records::MemoryEvent& event, const records::MemoryLedger&) {
  if (!traces_api_calls_) return;
  api_calls_.add_memory_call(event);
  idle_.add_memory_call(event);
}

void SummarySink::write_range(const records::RangeEvent& event) {
  using Kind = records::RangeEventKind;
  if (event.kind != Kind::push_pop && event.kind != Kind::start_end) return;
  const auto& table = records::range_table();
  ranges_.add_range(table.qualified_name(event.domain, event.name),
                    event.end_wall_ns > event.start_wall_ns ? event.end_wall_ns - event.start_wall_ns : 0);
}

void SummarySink::write_api_call(const records::ApiCall& call) {
  idle_.add_api_call(call);
  api_calls_.add_traced_call(call);
  traced_calls_ = true;
}

void SummarySink::end() {
  if (printed_) return;
  printed_ = true;
  const std::string prefix = fmt::format("=={}== ", getpid());
  std::vector<reports::SummarySection> api_section;
  if (!api_calls_.empty()) api_section.push_back(reports::api_calls_section(api_calls_.rows()));
  std::string text = reports::format_summary(summary_.rows(), prefix, api_section);
  if (!ranges_.empty()) text += reports::format_range_summary(ranges_.rows(), prefix);
  if (traced_calls_) {
    reports::GpuIdleSummary idle;
    for (const reports::DeviceIdle& device : idle_.analyse()) idle.add(device);
    text += reports::format_gpu_idle(idle.rows(), prefix);
  }
  // One write: the table stays whole beside the program's own output.
  std::string_view rest = text;
  while (!rest.empty()) {
    const ssize_t n = ::write(STDERR_FILENO, rest.data(), rest.size());
    if (n <= 0) return;
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace computeprof::shim
