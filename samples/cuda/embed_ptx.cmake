# Writes the PTX file ${PTX} into the C++ header ${HEADER} as the raw string literal
# kKernelsPtx. Run at build time: cmake -DPTX=... -DHEADER=... -P embed_ptx.cmake
foreach(required PTX HEADER)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "embed_ptx.cmake: -D${required}=... is required")
  endif()
endforeach()

file(READ "${PTX}" ptx_text)

# The literal ends at the first `)ptx"`: PTX containing it would be cut short silently.
set(delimiter "ptx")
string(FIND "${ptx_text}" ")${delimiter}\"" delimiter_position)
if(NOT delimiter_position EQUAL -1)
  message(FATAL_ERROR "embed_ptx.cmake: ${PTX} contains ')${delimiter}\"', the raw string's end")
endif()

set(header_text "// Generated from ${PTX} by embed_ptx.cmake at build time.
#pragma once

inline constexpr char kKernelsPtx[] = R\"${delimiter}(${ptx_text})${delimiter}\";
")
file(WRITE "${HEADER}" "${header_text}")
