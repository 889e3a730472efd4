#include "tools/run_file_stats.hpp"

#include <fmt/format.h>

#include "reports/gpu_idle.hpp"
#include "runfile/file_bytes.hpp"
#include "runfile/run_reader.hpp"

namespace computeprof::tools {

namespace {

class StatsVisitor final : public runfile::RunVisitor {
 public:
  StatsVisitor(const runfile::RunReader& reader, StatsInput& input) : reader_(reader), input_(input) {}

  void operation(const records::ContextInfo& context, const records::Record& r) override {
    // A graph launched as a whole keeps its device busy; OpenCL devices are numbered
    // apart from CUDA's and make no traced call.
    if (context.api == config::Api::cuda) idle_.add_operation(context.device, reports::idle_operation(context, r));
    input_.api_calls.add_operation_call(r);
    // A graph launch timed as a whole is no one GPU activity: left out, as from logs.
    if (r.kind == records::RecordKind::graph) return;
    input_.operations.add(r.method, r.gputime_ns);
    if (r.range_path != 0) input_.ranges.add_gpu_time_of_path(reader_.ranges().path_text(r.range_path), r.gputime_ns);
  }
  void memory(const records::MemoryEvent& e) override {
    idle_.add_memory_call(e);
    input_.api_calls.add_memory_call(e);
  }
  void range(const records::RangeEvent& e) override {
    if (e.kind != records::RangeEventKind::push_pop && e.kind != records::RangeEventKind::start_end) return;
    const std::uint64_t ns = e.end_wall_ns >= e.start_wall_ns ? e.end_wall_ns - e.start_wall_ns : 0;
    input_.ranges.add_range(reader_.ranges().qualified_name(e.domain, e.name), ns);
  }
  void api_call(const records::ApiCall& call) override {
    idle_.add_api_call(call);
    input_.api_calls.add_traced_call(call);
    traced_calls_ = true;
  }

  // The run's analysis, where the run traced API calls.
  void add_idle() const {
    if (!traced_calls_) return;
    for (const reports::DeviceIdle& device : idle_.analyse()) input_.idle.add(device);
  }

 private:
  const runfile::RunReader& reader_;
  StatsInput& input_;
  reports::GpuIdleInput idle_;
  bool traced_calls_ = false;
};

}  // namespace

std::string add_run_file(const std::string& path, std::string_view shown_path, StatsInput& input) {
  std::string why;
  const auto bytes = runfile::read_file_bytes(path, why);
  if (!bytes) return fmt::format("cannot read '{}': {}", shown_path, why);
  runfile::RunReader reader(*bytes);
  if (const runfile::RunHeader* header = reader.header(); header && header->rank) input.rank = header->rank->rank;
  StatsVisitor visitor(reader, input);
  const runfile::ReadSummary summary = reader.read(visitor);
  visitor.add_idle();
  if (!summary.error) return {};
  return fmt::format("{}: at byte {}: {}", shown_path, summary.error->offset, summary.error->what);
}

}  // namespace computeprof::tools
