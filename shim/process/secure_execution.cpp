#include "shim/process/secure_execution.hpp"

#include <sys/auxv.h>

#include <cstdlib>
#include <cstring>

namespace computeprof::shim {

bool secure_execution() {
  if (getauxval(AT_SECURE) != 0) return true;
  const char* assumed = std::getenv("COMPUTEPROF_ASSUME_SECURE_EXECUTION");
  return assumed && std::strcmp(assumed, "1") == 0;
}

}  // namespace computeprof::shim
