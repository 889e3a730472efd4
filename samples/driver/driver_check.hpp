#pragma once
// Every driver call of the samples goes through CU_CHECK: a call that does not return
// CUDA_SUCCESS ends the sample with `FAIL: <call> returned <error name>`.
#include <cuda.h>

namespace samples {

// Throws SampleFailure naming `call` and the error when `result` is not CUDA_SUCCESS.
void check_driver_call(CUresult result, const char* call);

}  // namespace samples

#define CU_CHECK(call) ::samples::check_driver_call((call), #call)
