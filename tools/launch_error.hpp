#pragma once
// A problem that keeps computeprof from running the application (no preload library, no
// temporary file, unreadable config): reported as one line, exit status 2.
#include <stdexcept>

namespace computeprof::tools {

class LaunchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace computeprof::tools
