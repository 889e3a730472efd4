// The callback ids nvprof's database files calls under are CUPTI's own.
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

#include "catch.hpp"

#include "reports/nvprof_api_ids.hpp"

#define CUPTI_RUNTIME_TRACE_CBID_none 0
#define NVPROF_API(entry, driver, runtime, runtime_id)                                 \
  static_assert(CUPTI_DRIVER_TRACE_CBID_##entry == driver, #entry "'s driver id");    \
  static_assert(CUPTI_RUNTIME_TRACE_CBID_##runtime == runtime_id, #entry "'s runtime id");
#include "reports/nvprof_api_ids.def"
#undef NVPROF_API

using computeprof::reports::nvprof_api_ids;
using computeprof::reports::nvprof_function_name;

TEST_CASE("nvprof ids: a driver entry point's ids and its runtime function", "[nvprof]") {
  const auto launch = nvprof_api_ids("cuLaunchKernel");
  REQUIRE(launch);
  CHECK(launch->driver_cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  CHECK(launch->runtime_cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  CHECK(nvprof_function_name(launch->runtime_name) == "cudaLaunchKernel");
  const auto copy = nvprof_api_ids("cuMemcpyHtoDAsync_v2_ptsz");
  REQUIRE(copy);
  CHECK(copy->runtime_cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000);
  CHECK(nvprof_function_name(copy->runtime_name) == "cudaMemcpyAsync");
  const auto create = nvprof_api_ids("cuMemCreate");
  REQUIRE(create);
  CHECK(create->runtime_cbid == 0);
  CHECK(create->runtime_name.empty());
  CHECK_FALSE(nvprof_api_ids("cuCtxCreate_v2"));
  CHECK_FALSE(nvprof_api_ids("cuLaunch"));
  CHECK(nvprof_function_name("cudaLaunchKernelExC_v11060") == "cudaLaunchKernelExC");
  CHECK(nvprof_function_name("cuMemcpyHtoD_v2") == "cuMemcpyHtoD");
}

TEST_CASE("nvprof ids: a row's callback id names its function as nvprof printed it", "[nvprof]") {
  using computeprof::reports::nvprof_call_name;
  CHECK(nvprof_call_name(true, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020) == "cudaMemcpy");
  CHECK(nvprof_call_name(true, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000) == "cudaLaunchKernel");
  CHECK(nvprof_call_name(false, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2) == "cuMemcpyHtoD");
  CHECK(nvprof_call_name(false, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) == "cuLaunchKernel");
  CHECK(nvprof_call_name(false, 0) == "unknown");
}
