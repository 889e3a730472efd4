#pragma once
// The names exports give a kernel besides the mangled one the classic log keeps
// (docs/format.md, "Exports"): its demangled signature and its base name.
#include <string>
#include <string_view>

namespace computeprof::records {

// "_Z6vecAddPKfS0_Pfi" -> "vecAdd(float const*, float const*, float*, int)"; a name
// that is not a mangled C++ name (OpenCL kernels, "memcpyHtoD") comes back unchanged.
std::string demangled_name(std::string_view name);

// The function's own name, without return type, scope, template arguments or
// parameters: "void at::native::elementwise_kernel<128, 2>(int, float)" ->
// "elementwise_kernel".
std::string_view base_name(std::string_view demangled);

}  // namespace computeprof::records
