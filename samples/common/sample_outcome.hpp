#pragma once
// How every sample ends: its last line on stdout is `PASS` (exit 0) or `FAIL: <why>`
// (exit 1). Everything a sample prints is deterministic, so that its output with and
// without the profiler can be compared byte for byte.
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

namespace samples {

// A check that did not hold; its message becomes the FAIL line.
class SampleFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws a SampleFailure with a printf-formatted message.
[[noreturn]] inline void fail(const char* format, ...) __attribute__((format(printf, 1, 2)));

[[noreturn]] inline void fail(const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  throw SampleFailure(message);
}

// Runs the sample's body and turns its outcome into the last line and the exit status.
template <typename Body>
int run_sample(Body body) {
  try {
    body();
  } catch (const SampleFailure& failure) {
    std::printf("FAIL: %s\n", failure.what());
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}

}  // namespace samples
