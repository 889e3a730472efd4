#pragma once
// The program may be capturing on another stream in global mode, where a wait (on an
// event, a context) would break its capture: the shim's own waits are not part of any
// capture.
#include "shim/intercept/driver_calls.hpp"

namespace computeprof::shim {

// For its lifetime, the calling thread's capture mode is relaxed (the program's mode
// comes back at its end).
class RelaxedCaptureMode {
 public:
  explicit RelaxedCaptureMode(const DriverCalls& d) : d_(d) { exchange(); }
  ~RelaxedCaptureMode() { exchange(); }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  void exchange() {
    if (d_.exchange_capture_mode) d_.exchange_capture_mode(&mode_);
  }

  const DriverCalls& d_;
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

}  // namespace computeprof::shim
