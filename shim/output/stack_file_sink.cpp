#include "shim/output/stack_file_sink.hpp"

#include <fmt/format.h>

#include "shim/output/log_paths.hpp"
#include "shim/process/call_stacks.hpp"
#include "symbols/module_list.hpp"

namespace computeprof::shim {

void StackFileSink::begin() {
  const std::string path = claim_export_path(settings_.log_template, ".stacks");
  if (!open_output_file(file_, path)) return;
  file_.append("# COMPUTEPROF_STACKS 1\n");
  if (!open_output_file(modules_, claim_export_path(settings_.log_template, ".modules"))) return;
  modules_.rewrite(symbols::kModulesHeader);
}

void StackFileSink::write_modules() {
  const auto& modules = symbolized_modules();
  if (!modules_.is_open() || modules.size() == modules_written_) return;
  modules_written_ = modules.size();
  std::string text(symbols::kModulesHeader);
  for (const auto& module : modules) text += symbols::module_line(module);
  modules_.rewrite(text);
}

void StackFileSink::write_stack(std::uint32_t id) {
  if (id == 0 || !file_.is_open() || !written_.insert(id).second) return;
  std::string text = fmt::format("stack {}\n", id);
  const auto& frames = symbolized_stack(id);
  for (std::size_t depth = 0; depth < frames.size(); ++depth) {
    fmt::format_to(std::back_inserter(text), "#{} {}\n", depth, describe_frame(frames[depth]));
  }
  file_.append(text);
}

void StackFileSink::write(const ProfiledContext&, const records::Record& record) { write_stack(record.stack_id); }

void StackFileSink::write_memory(const records::MemoryEvent& event, const records::MemoryLedger&) {
  write_stack(event.stack_id);
}

void StackFileSink::flush() {
  write_modules();
  file_.flush();
}

void StackFileSink::end() {
  write_modules();
  file_.close();
  modules_.close();
}

void StackFileSink::abandon() {
  file_.abandon();
  modules_.abandon();
}

}  // namespace computeprof::shim
