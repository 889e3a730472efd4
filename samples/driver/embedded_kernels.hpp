#pragma once
// The PTX of samples/cuda/kernels.cu, compiled at build time and embedded here, and the
// mangled names under which cuModuleGetFunction finds its kernels.

namespace samples {

// NUL-terminated PTX text, as cuModuleLoadData wants it.
const char* kernels_ptx();

inline constexpr const char* kVecAddName = "_Z6vecAddPKfS0_Pfi";
inline constexpr const char* kSpinName = "_Z4spiny";
inline constexpr const char* kBlockSumName = "_Z8blockSumPKfPfi";
inline constexpr const char* kEmptyName = "_Z5emptyv";

}  // namespace samples
