#include "shim/process/nested_call.hpp"

namespace computeprof::shim {

constinit thread_local bool detail::t_inside_recorded_call = false;

}  // namespace computeprof::shim
