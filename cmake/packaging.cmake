# The Debian package (`cpack -G DEB` in a build folder; scripts/package.sh does it all; docs/install.md):
#   /usr/bin/collbench
#   /usr/share/collbench/thresholds/*.json      the instance profiles and known-issues.json, where collbench
#                                               looks with no options (BIN/../share/collbench/thresholds)
#   /usr/share/doc/collbench/                   README.md, docs/*.md (references/ too), thresholds.md
#   /usr/share/doc/collbench/collbench-help.txt `collbench --help` and every `collbench COMMAND --help`
#   /usr/share/man/man1/collbench.1.gz          the same text as a man page (help2man, when found at install time)
# Depends are declared by name (COLLBENCH_DEB_DEPENDS; the defaults are Debian 12's packages of the
# libraries collbench links, with the versions dpkg-shlibdeps gives, plus openmpi-bin for mpirun);
# scripts/package.sh checks them against the binary and tests/install/deb_clean_root.sh installs the
# package in a clean Debian root.
# CUDA and NCCL are never declared: scripts/package.sh packages the mpi backend only (runs anywhere) unless
# asked for a CUDA build, whose CUDA runtime and NCCL come from NVIDIA's installers (as in the Dockerfile's
# base image), not from a Debian package.

# The binary installed (and packaged): this build's collbench, or with COLLBENCH_INSTALL_MPI_ONLY (what
# scripts/package.sh sets) a CUDA build's mpi-only twin, collbench_mpi. BUILD/packaged-binary.txt names
# its file and the target packaged_binary builds it.
option(COLLBENCH_INSTALL_MPI_ONLY "Install the mpi-only collbench of a CUDA build (the Debian package's)" OFF)
if(COLLBENCH_HAVE_NCCL AND COLLBENCH_INSTALL_MPI_ONLY)
  set(collbench_installed collbench_mpi)
else()
  set(collbench_installed collbench)
endif()
install(TARGETS ${collbench_installed} RUNTIME DESTINATION bin)
add_custom_target(packaged_binary)
add_dependencies(packaged_binary ${collbench_installed})
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/packaged-binary.txt CONTENT "$<TARGET_FILE:${collbench_installed}>\n")

set(COLLBENCH_DEB_DEPENDS
    "libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1 (>= 3.0), libopenmpi3 (>= 4.1.4), openmpi-bin (>= 4.1.4), libfabric1 (>= 1.11.0), libfmt9 (>= 9.1.0+ds1), libpmix2 (>= 4.2.2)"
    CACHE STRING "Depends: of the Debian package (the defaults are Debian 12 bookworm's names)")
set(COLLBENCH_DEB_RECOMMENDS "" CACHE STRING "Recommends: of the Debian package (none by default)")

# docs/ as it is (the findings' references name docs/references/*.md), the thresholds formats beside it.
install(FILES README.md DESTINATION share/doc/collbench)
install(DIRECTORY docs/ DESTINATION share/doc/collbench FILES_MATCHING PATTERN "*.md")
install(FILES thresholds/README.md DESTINATION share/doc/collbench RENAME thresholds.md)

# `collbench --help` at install time, from the binary being installed: a text file always, a man page
# when help2man is on PATH (Debian package help2man; scripts/package.sh installs it). cmake/install_help.cmake.
install(CODE "set(COLLBENCH_HELP_BIN \"$<TARGET_FILE:${collbench_installed}>\")
set(COLLBENCH_HELP_WORK \"${CMAKE_CURRENT_BINARY_DIR}\")")
install(SCRIPT cmake/install_help.cmake)

set(CPACK_PACKAGE_NAME collbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "collbench maintainers <maintainers@users.noreply.a-seed-02d05a7a.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "judges NCCL and EFA bandwidth on GPU clusters")
set(CPACK_PACKAGE_DESCRIPTION
    "collbench sweeps collectives over message sizes under MPI as nccl-tests does, checks every result, \
and judges the bandwidth against per-instance thresholds, known-bad versions and the nodes against each other \
(run, preflight, hunt, fabric, analyze, compare, report, launch).")
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${COLLBENCH_DEB_DEPENDS}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${COLLBENCH_DEB_RECOMMENDS}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
if(collbench_installed STREQUAL collbench AND COLLBENCH_HAVE_NCCL)
  string(APPEND CPACK_PACKAGE_DESCRIPTION
         " This build has the nccl backend: it needs the CUDA runtime and NCCL (not declared: NVIDIA's installers).")
endif()
include(CPack)
