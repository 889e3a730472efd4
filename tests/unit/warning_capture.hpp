#pragma once
// Collects the warnings printed while it lives, instead of writing them to stderr.
#include <string>
#include <vector>

namespace computeprof::test {

class WarningCapture {
 public:
  WarningCapture();
  ~WarningCapture();
  WarningCapture(const WarningCapture&) = delete;
  WarningCapture& operator=(const WarningCapture&) = delete;

  const std::vector<std::string>& lines() const { return lines_; }

 private:
  std::vector<std::string> lines_;
};

}  // namespace computeprof::test
