#pragma once
// What nvprof's database calls a driver entry point the shim records: CUPTI's callback
// ids of the driver call and of the CUDA runtime call that makes it (nvprof_api_ids.def).
#include <optional>
#include <string_view>

namespace computeprof::reports {

struct NvprofApiIds {
  int driver_cbid = 0;
  // 0 where no runtime function makes this driver call (cuMemCreate, ...).
  int runtime_cbid = 0;
  // The runtime function's CUPTI name (cudaMemcpy_v3020); empty with runtime_cbid 0.
  std::string_view runtime_name;
};

// The ids of `entry` (an exported driver symbol: cuMemcpyHtoD_v2); none for a name the
// shim does not record.
std::optional<NvprofApiIds> nvprof_api_ids(std::string_view entry);

// The function's name as nvprof printed it: CUPTI's name without its version and
// stream suffixes (cudaMemcpyAsync_ptsz_v7000: cudaMemcpyAsync).
std::string_view nvprof_function_name(std::string_view cupti_name);

// The name nvprof printed for a RUNTIME (`runtime`) or DRIVER row's callback id:
// cudaMemcpy, cuMemcpyHtoD; "unknown" for an id computeprof does not write.
std::string_view nvprof_call_name(bool runtime, int cbid);

}  // namespace computeprof::reports
