// The run-file reader (runfile/) on any bytes: it reads what is whole, stops at the
// first damage with an offset inside the file, and never reads out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "runfile/run_reader.hpp"

namespace {

struct Touch : computeprof::runfile::RunVisitor {
  std::size_t sum = 0;
  const computeprof::runfile::RunReader* reader = nullptr;
  void operation(const computeprof::records::ContextInfo& context, const computeprof::records::Record& r) override {
    sum += context.device_name.size() + r.method.size() + r.api.size() + r.counter(3).value;
    sum += reader->ranges().path_text(r.range_path).size() + reader->stack(r.stack_id).size();
  }
  void memory(const computeprof::records::MemoryEvent& e) override { sum += e.api.size() + e.bytes; }
  void range(const computeprof::records::RangeEvent& e) override {
    sum += reader->ranges().name(e.name).size() + reader->ranges().path_text(e.path).size();
    sum += reader->ranges().qualified_name(e.domain, e.name).size();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  computeprof::runfile::RunReader reader(file);
  Touch touch;
  touch.reader = &reader;
  const computeprof::runfile::ReadSummary summary = reader.read(touch);
  if (summary.error && summary.error->offset > size) std::abort();
  if (summary.bytes > size) std::abort();
  return 0;
}
