#pragma once
// A chunk's checksum: 64 bits over its payload, eight bytes a step, so that a chunk
// torn by a killed writer or changed on disk is found, not misread. Not cryptographic:
// a hostile file that passes it is still read with every bound checked.
#include <cstdint>
#include <string_view>

namespace computeprof::runfile {

std::uint64_t payload_checksum(std::string_view payload);

}  // namespace computeprof::runfile
