// Self instructions per loaded object in a callgrind output file.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace computeprof::bench {

// Object path -> instructions executed in it (self cost, all threads of the file).
// Reads callgrind's format (valgrind manual, "Callgrind Format Specification"); false
// when the file cannot be read.
bool read_object_costs(const std::string& path, std::map<std::string, std::uint64_t>& costs);

}  // namespace computeprof::bench
