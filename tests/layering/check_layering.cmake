# Checks the code against the "may use" tables of docs/design.md ("Parts" and "The
# shim's parts"): a folder uses only the folders its row names. A use is
# - an #include line, in C++, CUDA, assembly (.S) and entry-list (.def) files;
# - in assembly, a name the shim gives C linkage (computeprof_*), which belongs to the
#   folder whose code declares it extern "C" (or whose assembly makes it .globl). A name
#   pasted from an entry (computeprof_recorded_##sym) is a wrapper of the entry list:
#   the link-time contract of docs/design.md, not a use. A C++ (mangled) name of the
#   shim's, or a computeprof_ name no folder declares, is a violation too: its folder
#   cannot be told.
# A C name is declared extern "C" in one folder only: a second declaration would be a
# use no #include shows.
# Run as: cmake -DSOURCE_DIR=<repository> -P check_layering.cmake
# Each violation is one line on stderr, "layering violation: <file>: <what>".
cmake_minimum_required(VERSION 3.25)
file(STRINGS "${SOURCE_DIR}/docs/design.md" rows REGEX "^\\| `[a-z/]+/` \\|")
if(NOT rows)
  message(FATAL_ERROR "docs/design.md has no folder table")
endif()

# The folders with a row, and what each may use.
set(folders "")
foreach(row IN LISTS rows)
  # | `folder/` | job | may use |
  string(REGEX MATCH "^\\| `([a-z/]+)/` \\|" _ "${row}")
  set(folder "${CMAKE_MATCH_1}")
  string(REGEX REPLACE "^.*\\| ([^|]*) \\|$" "\\1" may_use "${row}")
  string(REGEX MATCHALL "`[a-z/]+/`" allowed "${may_use}")
  list(TRANSFORM allowed REPLACE "`([a-z/]+)/`" "\\1")
  list(APPEND allowed "${folder}")
  list(APPEND folders "${folder}")
  set("may_use_${folder}" "${may_use}")
  set("allowed_${folder}" "${allowed}")
endforeach()

# The folder `relative` (a path in the repository) belongs to: the deepest with a row.
function(owner_of relative result)
  set(owner "")
  foreach(folder IN LISTS folders)
    string(LENGTH "${folder}" length)
    string(LENGTH "${owner}" owner_length)
    if(relative MATCHES "^${folder}/" AND length GREATER owner_length)
      set(owner "${folder}")
    endif()
  endforeach()
  set(${result} "${owner}" PARENT_SCOPE)
endfunction()

# The files of `folder` with one of the extensions that follow, recursively.
function(files_of folder result)
  set(patterns "")
  foreach(extension IN LISTS ARGN)
    list(APPEND patterns "${SOURCE_DIR}/${folder}/*.${extension}")
  endforeach()
  file(GLOB_RECURSE files ${patterns})
  set(${result} "${files}" PARENT_SCOPE)
endfunction()

# `text` without its C comments (/* */ and //).
function(without_comments text result)
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  set(${result} "${text}" PARENT_SCOPE)
endfunction()

set(violations "")
set(checked 0)

# The C names of every folder that is not "everything" (tests and benchmarks are no
# folder's to use): the computeprof_ names its C++ declares extern "C" and its assembly
# makes .globl.
set(product_files "")
foreach(folder IN LISTS folders)
  if(NOT "${may_use_${folder}}" STREQUAL "everything")
    files_of("${folder}" files cpp hpp cu cuh S)
    list(APPEND product_files ${files})
  endif()
endforeach()
list(REMOVE_DUPLICATES product_files)
set(c_names "")
foreach(source IN LISTS product_files)
  file(RELATIVE_PATH relative "${SOURCE_DIR}" "${source}")
  owner_of("${relative}" owner)
  file(READ "${source}" text)
  without_comments("${text}" text)
  if(source MATCHES "\\.S$")
    string(REGEX MATCHALL "\\.globl[ \t]+computeprof_[A-Za-z0-9_]*" declarations "${text}")
  else()
    # Up to the declaration's end or the definition's body.
    string(REGEX MATCHALL "extern \"C\"[^;{]*" declarations "${text}")
  endif()
  foreach(declaration IN LISTS declarations)
    string(REGEX MATCHALL "computeprof_[A-Za-z0-9_]*(##)?" names "${declaration}")
    list(FILTER names EXCLUDE REGEX "##$")
    foreach(name IN LISTS names)
      if(NOT DEFINED "c_name_${name}")
        set("c_name_${name}" "${owner}")
      elseif(NOT "${c_name_${name}}" STREQUAL "${owner}")
        list(APPEND violations
             "${relative}: declares ${name}, which ${c_name_${name}}/ declares (a C name belongs to one folder)")
      endif()
    endforeach()
  endforeach()
endforeach()

foreach(folder IN LISTS folders)
  set(may_use "${may_use_${folder}}")
  if(may_use STREQUAL "everything")
    continue()
  endif()
  set(allowed "${allowed_${folder}}")

  files_of("${folder}" sources cpp hpp cu cuh S def)
  foreach(source IN LISTS sources)
    file(RELATIVE_PATH relative "${SOURCE_DIR}" "${source}")
    file(STRINGS "${source}" includes REGEX "^#include \"")
    foreach(line IN LISTS includes)
      string(REGEX MATCH "^#include \"([a-z_]+)/(([a-z_]+)/)?" _ "${line}")
      set(top "${CMAKE_MATCH_1}")
      set(second "${CMAKE_MATCH_3}")
      if(NOT top)
        continue()
      endif()
      if(folder MATCHES "^shim/")
        # A part of the shim: other parts by name; the folders outside shim/ per the
        # top-level `shim/` row.
        if(top STREQUAL "shim")
          set(used "shim/${second}")
        else()
          continue()
        endif()
      elseif(top STREQUAL folder OR NOT IS_DIRECTORY "${SOURCE_DIR}/${top}")
        continue()
      else()
        set(used "${top}")
      endif()
      math(EXPR checked "${checked} + 1")
      if(NOT used IN_LIST allowed)
        list(APPEND violations "${relative}: ${line} (${folder}/ may use: ${may_use})")
      endif()
    endforeach()

    # Assembly: the C names it refers to, but those it defines itself.
    owner_of("${relative}" owner)
    if(NOT source MATCHES "\\.S$" OR NOT owner STREQUAL folder)
      continue()
    endif()
    file(READ "${source}" text)
    without_comments("${text}" text)
    string(REGEX MATCHALL "computeprof_[A-Za-z0-9_]*(##)?" references "${text}")
    string(REGEX MATCHALL "\\.(globl|set)[ \t]+computeprof_[A-Za-z0-9_]*|computeprof_[A-Za-z0-9_]*:" own "${text}")
    list(TRANSFORM own REPLACE "^\\.(globl|set)[ \t]+|:$" "")
    list(REMOVE_DUPLICATES references)
    if(own)
      list(REMOVE_ITEM references ${own})
    endif()
    list(FILTER references EXCLUDE REGEX "##$")
    foreach(name IN LISTS references)
      math(EXPR checked "${checked} + 1")
      if(NOT DEFINED "c_name_${name}")
        list(APPEND violations "${relative}: refers to ${name}, which no folder declares extern \"C\"")
      elseif(NOT "${c_name_${name}}" IN_LIST allowed)
        list(APPEND violations "${relative}: refers to ${name} of ${c_name_${name}}/ (${folder}/ may use: ${may_use})")
      endif()
    endforeach()
    string(REGEX MATCHALL "_Z[A-Za-z0-9_]*11computeprof[A-Za-z0-9_]*" mangled "${text}")
    foreach(name IN LISTS mangled)
      list(APPEND violations "${relative}: refers to the C++ name ${name}: give it C linkage (computeprof_*) so that its folder is known")
    endforeach()
  endforeach()
endforeach()

# config/, records/, reports/, logfmt/, traces/ and exports/ build and are tested on any machine: no CUDA or OpenCL headers.
foreach(folder config records reports logfmt traces exports)
  files_of("${folder}" sources cpp hpp def)
  foreach(source IN LISTS sources)
    file(STRINGS "${source}" includes REGEX "^#include <(cuda|cupti|CL/|nvPTX|nvperf)")
    foreach(line IN LISTS includes)
      file(RELATIVE_PATH relative "${SOURCE_DIR}" "${source}")
      list(APPEND violations "${relative}: ${line} (${folder}/ includes no CUDA or OpenCL header)")
    endforeach()
  endforeach()
endforeach()

if(violations)
  foreach(violation IN LISTS violations)
    message(NOTICE "layering violation: ${violation}")
  endforeach()
  list(LENGTH violations count)
  message(FATAL_ERROR "${count} uses against docs/design.md (above)")
endif()
message(STATUS "layering: ${checked} uses across folders checked, all allowed")
