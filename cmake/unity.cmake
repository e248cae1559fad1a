# Unity builds: each target's C++ files compiled in batches of 8 as one translation unit, so the
# headers and the templates every file instantiates (fmt, nlohmann/json, GoogleTest) are compiled
# once per batch instead of once per file. On cb_reports, cold, with precompiled headers and -g1:
# 164 CPU seconds against 310 file by file (measured hours apart on a shared machine: a rough ratio).
#
#   COLLBENCH_UNITY  default ON without a compiler launcher, OFF with one (as COLLBENCH_PCH): a warm
#                    ccache is faster still, and a file-by-file build is the one that fails on a file
#                    missing an include another file of its batch happens to bring. Two files of one
#                    target may not define the same internal name (the unity build fails on that).
# The default of both this and COLLBENCH_PCH (cmake/pch.cmake, included after the targets).
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set(collbench_no_launcher OFF)
else()
  set(collbench_no_launcher ON)
endif()
option(COLLBENCH_UNITY "Compile each target's files in batches (unity build)" ${collbench_no_launcher})
if(COLLBENCH_UNITY)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)
  # A batch #includes its files, so GCC takes a test fixture in an anonymous namespace for a header's
  # type and warns on every TEST_F (-Wsubobject-linkage); a file-by-file build has no such warning.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-Wno-subobject-linkage>)
  endif()
endif()
