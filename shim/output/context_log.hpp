#pragma once
// The log of one context: its number, device and origin of time, and the file its
// records go to. Created on the context's first record; the file is opened by the
// first write. Only the record pipeline's drain writes, flushes or closes it.
#include <cstdint>
#include <string>

#include "logfmt/log_file.hpp"
#include "logfmt/record.hpp"
#include "shim/process/profiling_state.hpp"

namespace computeprof::shim {

struct ContextOrigin {
  std::uint64_t monotonic_ns = 0;  // `timestamp` counts from here
  std::uint64_t wall_ns = 0;       // the same instant on the wall clock: TIMESTAMPFACTOR

  // The monotonic time of a wall-clock instant (GPU times are on the wall clock; the
  // record pipeline orders by the monotonic one).
  std::uint64_t monotonic_at(std::uint64_t wall) const {
    return wall >= wall_ns ? monotonic_ns + (wall - wall_ns) : monotonic_ns;
  }
};

class ContextLog {
 public:
  ContextLog(int number, int device, std::string device_name, const ApiProfile& profile, ContextOrigin origin);

  int number() const { return number_; }
  int device() const { return device_; }
  const ApiProfile& profile() const { return profile_; }
  const ContextOrigin& origin() const { return origin_; }

  // Drain only.
  void write(const logfmt::Record& record);
  void flush();
  void close();
  // A forked child: let go of the parent's file without writing to it.
  void abandon();

 private:
  bool open_file();

  int number_;
  int device_;
  std::string device_name_;
  const ApiProfile& profile_;
  ContextOrigin origin_;
  enum class FileState : std::uint8_t { unopened, open, failed, closed } state_ = FileState::unopened;
  logfmt::LogFile file_;
  std::string line_;
};

// Appends `path` to the file named by COMPUTEPROF_LOG_INDEX (the computeprof command
// reads it to say where the logs are).
void note_log_path(const std::string& path);

}  // namespace computeprof::shim
