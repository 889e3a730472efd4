#include "shim/process/range_path.hpp"

namespace computeprof::shim {

constinit thread_local std::uint32_t detail::t_range_path = 0;

}  // namespace computeprof::shim
