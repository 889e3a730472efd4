# The layering check fails on a tree that breaks the rules (violations/: an include in
# an entry list, assembly that reads another folder's C name, a name no folder
# declares, a C++ name, a C name declared twice, a CUDA header in config/), with
# exactly the lines of violations/expected.txt.
# Run as: cmake -P check_violations.cmake
cmake_minimum_required(VERSION 3.25)
set(tree "${CMAKE_CURRENT_LIST_DIR}/violations")
execute_process(COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR=${tree} -P "${CMAKE_CURRENT_LIST_DIR}/check_layering.cmake"
                RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(status EQUAL 0)
  message(FATAL_ERROR "check_layering.cmake passed a tree with violations:\n${output}${errors}")
endif()
string(REGEX MATCHALL "layering violation: [^\n]*" found "${errors}")
list(TRANSFORM found REPLACE "^layering violation: " "")
file(STRINGS "${tree}/expected.txt" expected)
if(NOT found STREQUAL expected)
  list(JOIN found "\n  " found_text)
  list(JOIN expected "\n  " expected_text)
  message(FATAL_ERROR "check_layering.cmake reported\n  ${found_text}\nexpected\n  ${expected_text}\n(its output:\n${errors})")
endif()
list(LENGTH found count)
message(STATUS "layering: the ${count} violations of violations/ reported")
