# What an install holds besides the library and the command (installed by tools/ and
# shim/), how to remove it, and the Debian package cpack makes of it.

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The man pages and the completion are written in the build tree (tools/CMakeLists.txt).
install(FILES ${PROJECT_BINARY_DIR}/docs/man/computeprof.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_BINARY_DIR}/docs/man/computeprof.conf.5 DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
# bash-completion loads completions/<command> on first use.
install(FILES ${PROJECT_BINARY_DIR}/tools/computeprof.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME computeprof)

# `cmake --build build --target uninstall` (`sudo make -C build uninstall`): removes every
# file the last `cmake --install build` wrote, as listed in build/install_manifest.txt
# (which cpack also rewrites, with the package's paths: uninstall before packaging).
add_custom_target(uninstall
  COMMAND ${CMAKE_COMMAND} -DMANIFEST=${CMAKE_BINARY_DIR}/install_manifest.txt
          -P ${PROJECT_SOURCE_DIR}/cmake/uninstall.cmake
  COMMENT "Removing the files listed in install_manifest.txt"
  VERBATIM)

# `cpack --config build/CPackConfig.cmake` (from any directory: the package lands in the
# working directory) makes computeprof_<version>_<arch>.deb, installed under /usr.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME computeprof)
set(CPACK_PACKAGE_VENDOR computeprof)
set(CPACK_PACKAGE_CONTACT "computeprof maintainers <computeprof@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "COMPUTE_PROFILE logs for CUDA and OpenCL programs")
set(CPACK_PACKAGE_DESCRIPTION
  "computeprof brings back the CUDA driver's command-line profiler: preloaded into a CUDA or\n\
OpenCL program, libcomputeprof.so writes the classic COMPUTE_PROFILE logs (one record per\n\
kernel launch and memory copy, with counters through CUPTI), Chrome traces, SQLite\n\
databases and memory reports. The computeprof command runs a program with it.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ${COMPUTEPROF_INSTALL_STRIP})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# libcupti and the driver are loaded at run time when present: not dependencies.
find_program(COMPUTEPROF_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(COMPUTEPROF_DPKG_SHLIBDEPS)
if(COMPUTEPROF_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  # zlib1g: the command links zlib (`computeprof merge` reads and writes gzip traces);
  # libre2-9: the command and libcomputeprof_re2.so link RE2 (the kernel filters).
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libgcc-s1, libstdc++6, libsqlite3-0, zlib1g, libre2-9")
endif()
# Loaded at run time when call stacks are asked for (docs/format.md, "Call stacks"):
# libunwind captures them fast, libdw names their frames; without either the shim
# works, slower or with fewer names, and says so.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libunwind8, libdw1")
include(CPack)

# nvprof's name for the launcher, outside PATH (<libexec>/computeprof/nvprof, a relative
# symbolic link to the command): a user who puts that folder first on PATH runs
# `nvprof ./app` as before (docs/format.md, "computeprof nvprof").
file(RELATIVE_PATH nvprof_target ${CMAKE_INSTALL_FULL_LIBEXECDIR}/computeprof ${CMAKE_INSTALL_FULL_BINDIR}/computeprof)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/libexec)
file(CREATE_LINK ${nvprof_target} ${PROJECT_BINARY_DIR}/libexec/nvprof SYMBOLIC)
install(FILES ${PROJECT_BINARY_DIR}/libexec/nvprof DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/computeprof)
