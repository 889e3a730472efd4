#pragma once
// Whether the CUDA runtime drives this process's CUDA work. Every libcudart (shared or
// static, 11.3 to 13) asks cuGetProcAddress for "cuGetProcAddress" itself before its
// first driver call and then reaches every entry point through the pointer it got; a
// program written against the driver API has no reason to. nvprof's database files a
// call the runtime made under the runtime's API, one made directly under the driver's
// (docs/format.md, "nvprof database").
namespace computeprof::shim {

// Called by cuGetProcAddress when it is asked for itself.
void note_cuda_runtime();
// Whether that happened in this process (a forked child keeps its parent's answer).
bool cuda_runtime_present();

}  // namespace computeprof::shim
