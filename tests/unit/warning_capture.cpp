#include "warning_capture.hpp"

#include "config/report.hpp"

namespace computeprof::test {

WarningCapture::WarningCapture() {
  config::reset_warned_once();
  config::set_warning_sink(
      [](std::string_view line, void* user) { static_cast<std::vector<std::string>*>(user)->emplace_back(line); },
      &lines_);
}

WarningCapture::~WarningCapture() {
  config::set_warning_sink(nullptr, nullptr);
  config::reset_warned_once();
}

}  // namespace computeprof::test
