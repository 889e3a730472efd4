#pragma once
// The OpenCL functions of opencl_entries.def: the loader's real ones, found lazily
// behind the shim (no DT_NEEDED on libOpenCL: every preloaded process would load it),
// and the shim's wrappers of the wrapped ones.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "shim/intercept/opencl_api.hpp"

namespace computeprof::shim {

enum class OpenCLEntry : std::uint16_t {
#define OPENCL_WRAPPED(name, version) name,
#define OPENCL_CALLED(name) name,
#include "shim/intercept/opencl_entries.def"
#undef OPENCL_WRAPPED
#undef OPENCL_CALLED
};

template <OpenCLEntry E>
struct OpenCLEntryType;
#define OPENCL_ENTRY_TYPE(name)                     \
  template <>                                       \
  struct OpenCLEntryType<OpenCLEntry::name> {       \
    using type = decltype(&::name);                 \
  };
#define OPENCL_WRAPPED(name, version) OPENCL_ENTRY_TYPE(name)
#define OPENCL_CALLED(name) OPENCL_ENTRY_TYPE(name)
#include "shim/intercept/opencl_entries.def"
#undef OPENCL_WRAPPED
#undef OPENCL_CALLED
#undef OPENCL_ENTRY_TYPE

// The loader's function of `e`: the next definition after the shim, or the loader's
// own when the program opened it with dlopen. Null when there is none.
void* real_opencl_entry(OpenCLEntry e);

template <OpenCLEntry E>
typename OpenCLEntryType<E>::type real_opencl() {
  return reinterpret_cast<typename OpenCLEntryType<E>::type>(real_opencl_entry(E));
}

// What a wrapper returns when no OpenCL loader is behind the shim (it cannot happen to
// a program linked with libOpenCL); says so once on stderr.
cl_int missing_opencl_function(const char* name);

}  // namespace computeprof::shim

// The real function `name`, typed as the header declares it.
#define COMPUTEPROF_CL_REAL(name) (::computeprof::shim::real_opencl<::computeprof::shim::OpenCLEntry::name>())

// In a wrapper: `real_fn` and the wrapper's name `api_name`, or return the error above.
// Wrappers that return an object instead of a cl_int report the error through their
// errcode_ret.
#define COMPUTEPROF_CL_REAL_OR_RETURN(name)                                   \
  [[maybe_unused]] constexpr std::string_view api_name = #name;               \
  auto* real_fn = COMPUTEPROF_CL_REAL(name);                                  \
  if (!real_fn) return ::computeprof::shim::missing_opencl_function(#name)
