#pragma once
// Bytes as base64 text (RFC 4648, with padding): what a page can hold inside an element
// whatever the bytes are.
#include <string>
#include <string_view>

namespace computeprof::tools {

std::string base64_text(std::string_view bytes);

}  // namespace computeprof::tools
