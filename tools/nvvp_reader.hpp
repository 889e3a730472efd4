#pragma once
// The rows of a .nvvp that nvprof's printed outputs need (docs/format.md, "nvprof
// database"): its kernels, copies and memsets, and its API calls.
#include <cstdint>
#include <string>
#include <vector>

#include "reports/nvprof_report.hpp"

namespace computeprof::tools {

struct NvvpContents {
  std::vector<reports::NvprofGpuRow> gpu;
  std::vector<reports::NvprofApiRow> api;
  std::uint64_t origin_ns = 0;  // the earliest start of any row: time 0 of the traces
};

// Reads `path`; an empty string, or why it could not.
std::string read_nvvp(const std::string& path, NvvpContents& contents);

}  // namespace computeprof::tools
