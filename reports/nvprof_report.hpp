#pragma once
// nvprof's printed outputs (docs/format.md, "computeprof nvprof"): the summary of GPU
// activities and API calls, --print-gpu-trace's and --print-api-trace's tables, and
// their --csv forms (a header row, a units row, then the rows), from the rows of one
// process's nvprof database.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace computeprof::reports {

enum class NvprofActivity : std::uint8_t { kernel, memcpy, memset };

// One row of CONCURRENT_KERNEL, MEMCPY, MEMCPY2 or MEMSET.
struct NvprofGpuRow {
  NvprofActivity activity = NvprofActivity::kernel;
  std::uint64_t start_ns = 0;  // since the epoch, as the database holds it
  std::uint64_t duration_ns = 0;
  std::uint32_t grid[3] = {0, 0, 0};
  std::uint32_t block[3] = {0, 0, 0};
  std::uint64_t registers = 0;
  std::uint64_t static_smem = 0;
  std::uint64_t dynamic_smem = 0;
  std::uint64_t bytes = 0;  // copies and memsets
  int copy_kind = 0;        // CUPTI's memcpy kind (copies)
  int src_kind = 0;         // CUPTI's memory kinds; 0 where there is none
  int dst_kind = 0;
  std::string device;  // the device's name
  int device_id = 0;
  std::int64_t context = 0;
  std::int64_t stream = 0;
  std::string name;  // a kernel's mangled name
  std::uint64_t correlation = 0;
};

// One row of RUNTIME or DRIVER.
struct NvprofApiRow {
  std::uint64_t start_ns = 0;
  std::uint64_t duration_ns = 0;
  std::string name;  // cudaMemcpy, cuLaunchKernel, ...
  std::uint64_t correlation = 0;
};

// -u: how times are written. automatic: each value in the unit that suits it (nvprof's
// "auto"); column: one unit per column, the one that suits its longest value; the others
// one unit for all.
enum class NvprofTimeUnit : std::uint8_t { automatic, column, s, ms, us, ns };

struct NvprofReportStyle {
  NvprofTimeUnit unit = NvprofTimeUnit::automatic;
  bool csv = false;
};

// The name nvprof gave a row: a kernel's demangled name, "[CUDA memcpy HtoD]", "[CUDA memset]".
std::string nvprof_activity_name(const NvprofGpuRow& row);

// "==<pid>== Profiling result:" and the summary: "GPU activities" (with_gpu) and "API
// calls" (with_api) sections.
std::string format_nvprof_summary(const std::vector<NvprofGpuRow>& gpu, const std::vector<NvprofApiRow>& api,
                                  bool with_gpu, bool with_api, const NvprofReportStyle& style,
                                  std::string_view prefix);

// "==<pid>== Profiling result:" and --print-gpu-trace's table, rows in start order;
// `origin_ns` is time 0 of the Start column.
std::string format_nvprof_gpu_trace(std::vector<NvprofGpuRow> rows, std::uint64_t origin_ns,
                                    const NvprofReportStyle& style, std::string_view prefix);

// --print-api-trace's table; a launch's row names its kernel and correlation id, as
// nvprof's did.
std::string format_nvprof_api_trace(std::vector<NvprofApiRow> rows, const std::vector<NvprofGpuRow>& gpu,
                                    std::uint64_t origin_ns, const NvprofReportStyle& style, std::string_view prefix);

// Bytes as nvprof printed sizes: "112B", "409.60KB", "1.0000MB" (powers of 1000).
std::string format_nvprof_bytes(std::uint64_t bytes);

}  // namespace computeprof::reports
