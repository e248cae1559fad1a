# Build-configuration checks, run as `cmake -DSOURCE_DIR=... -DWORK_DIR=... -P check_cmake.cmake`:
cmake_policy(VERSION 3.22)
# the CMake the project needs (Ubuntu 22.04's 3.22 must do), the GPU architectures per CUDA version,
# and nvcc's version read from its output.
include(${SOURCE_DIR}/cmake/cuda_archs.cmake)
set(failures 0)
macro(expect what got want)
  if(NOT "${got}" STREQUAL "${want}")
    message(SEND_ERROR "${what}: got '${got}', want '${want}'")
    math(EXPR failures "${failures} + 1")
  endif()
endmacro()

file(READ ${SOURCE_DIR}/CMakeLists.txt top)
string(REGEX MATCH "cmake_minimum_required\\(VERSION ([0-9.]+)" _ "${top}")
if(CMAKE_MATCH_1 VERSION_GREATER 3.22)
  message(SEND_ERROR "cmake_minimum_required is ${CMAKE_MATCH_1}; Ubuntu 22.04 ships CMake 3.22")
  math(EXPR failures "${failures} + 1")
endif()

foreach(pair "13.0=80;90;100" "12.8=80;90;100" "12.6=80;90" "12.4=80;90" "11.8=80;90" "11.4=80" "10.2=")
  string(REPLACE "=" ";" parts "${pair}")
  list(POP_FRONT parts version)
  collbench_cuda_archs(${version} archs)
  expect("architectures for CUDA ${version}" "${archs}" "${parts}")
endforeach()

file(MAKE_DIRECTORY ${WORK_DIR})
file(WRITE ${WORK_DIR}/nvcc "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\necho 'Cuda compilation tools, release 12.4, V12.4.131'\n")
file(CHMOD ${WORK_DIR}/nvcc PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
collbench_nvcc_version(${WORK_DIR}/nvcc version)
expect("nvcc version" "${version}" "12.4")
collbench_nvcc_version(${WORK_DIR}/no-such-nvcc version)
expect("version of a missing nvcc" "${version}" "")

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} build-configuration check(s) failed")
endif()
message(STATUS "build-configuration checks passed")
