#pragma once
// `computeprof stacks FILE.stacks`: a stacks file written by a run (docs/format.md, "Call
// stacks"), its frames named again from the binaries or their debug files on this
// machine, found through the module list written beside it (FILE.modules).
#include <cstdio>
#include <string>

namespace computeprof::tools {

// Prints the stacks file at `path` with its frames named again to `out`; a frame no
// file here names is printed as it was. 0, or 1 when the file cannot be read (a
// warning names it).
int print_resolved_stacks(const std::string& path, std::FILE* out);

}  // namespace computeprof::tools
