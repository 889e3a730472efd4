# ctest takes the test names Catch lists as a CMake list: a ';' in a name would cut it,
# and the cut name would match no test, which passes without running anything.
# Run as: cmake -DBINARIES="a|b" -P test_names.cmake
string(REPLACE "|" ";" binaries "${BINARIES}")
foreach(binary IN LISTS binaries)
  execute_process(COMMAND ${binary} --list-test-names-only OUTPUT_VARIABLE names)
  string(FIND "${names}" ";" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${binary}: a test name has a ';', which ctest cannot run")
  endif()
endforeach()
