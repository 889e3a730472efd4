#pragma once
// Secure execution (docs/design.md, "Rules of the house"): a setuid or setgid program,
// or one with file capabilities, runs with the kernel's AT_SECURE flag set, on behalf
// of a user who chose its environment. There the shim profiles nothing and reads none
// of its variables: no file is created, no config read, whatever they say.
namespace computeprof::shim {

// Whether the process runs in secure-execution mode (AT_SECURE), or a test asks the
// shim to behave so (COMPUTEPROF_ASSUME_SECURE_EXECUTION=1: it can only take rights
// away).
bool secure_execution();

}  // namespace computeprof::shim
