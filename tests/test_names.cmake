# ctest takes the test names Catch lists as a CMake list: a ';' in a name would cut it,
# and the cut name would match no test, which passes without running anything. And ctest
# hands a name to Catch as its first argument: one starting with '-' is read as an
# option ("-o name" wrote every result to a file and passed).
# Run as: cmake -DBINARIES="a|b" -P test_names.cmake
string(REPLACE "|" ";" binaries "${BINARIES}")
foreach(binary IN LISTS binaries)
  execute_process(COMMAND ${binary} --list-test-names-only OUTPUT_VARIABLE names)
  string(FIND "${names}" ";" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${binary}: a test name has a ';', which ctest cannot run")
  endif()
  string(REGEX MATCH "(^|\n)-[^\n]*" dash "${names}")
  if(dash)
    string(STRIP "${dash}" dash)
    message(FATAL_ERROR "${binary}: the test name '${dash}' starts with '-', which Catch takes for an option")
  endif()
endforeach()
