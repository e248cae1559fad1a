# Sanitized and fuzzing builds (scripts/sanitize.sh, scripts/fuzz.sh). Included before any target
# is defined so that every library, test and the collbench binary get the same flags.
#
#   COLLBENCH_SANITIZE=ON  AddressSanitizer and UndefinedBehaviorSanitizer everywhere; undefined
#                          behaviour aborts (no recovery) so that a test that hits it fails.
#   COLLBENCH_FUZZ=ON      the libFuzzer targets in tests/fuzz (clang only); our code is built with
#                          coverage for the fuzzer (fuzzer-no-link) as well as ASan and UBSan.
option(COLLBENCH_SANITIZE "Build everything with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(COLLBENCH_FUZZ "Build the libFuzzer targets in tests/fuzz (needs clang; implies the sanitizers)" OFF)

set(COLLBENCH_SANITIZER_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)

if(COLLBENCH_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "COLLBENCH_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++-16 "
                        "(Debian: apt-get install clang-16 libclang-rt-16-dev)")
  endif()
  # std::source_location (bench/call_site.h) needs clang 15 or later with libstdc++.
  if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 15)
    message(FATAL_ERROR "COLLBENCH_FUZZ: clang ${CMAKE_CXX_COMPILER_VERSION} has no std::source_location with this "
                        "libstdc++; use clang 15 or later (Debian 12: clang-16 libclang-rt-16-dev)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link ${COLLBENCH_SANITIZER_FLAGS})
  add_link_options(${COLLBENCH_SANITIZER_FLAGS})
elseif(COLLBENCH_SANITIZE)
  add_compile_options(${COLLBENCH_SANITIZER_FLAGS})
  add_link_options(${COLLBENCH_SANITIZER_FLAGS})
endif()

# collbench_plain_test_code(): for the directory that calls it (tests/), in a sanitized or fuzzing build:
# the test programs' own code at -O0 and without the fuzzer's coverage. The sanitizers stay; the code
# under test (the libraries, collbench, the fuzz targets) keeps -O1 and coverage. The test programs were
# about 46% of that build's compile time; on one batch, 45 s of CPU at -O1 with coverage, 36 s without
# coverage, 26 s at -O0.
macro(collbench_plain_test_code)
  if(COLLBENCH_SANITIZE OR COLLBENCH_FUZZ)
    get_directory_property(collbench_test_options COMPILE_OPTIONS)
    list(REMOVE_ITEM collbench_test_options -fsanitize=fuzzer-no-link)
    list(APPEND collbench_test_options -O0)
    set_directory_properties(PROPERTIES COMPILE_OPTIONS "${collbench_test_options}")
  endif()
endmacro()

# collbench_timed_test_code(TARGET...): in a sanitized or fuzzing build, test code whose own work is most
# of its tests' time at -O1 after all: at -O0 the NCCL Inspector log simulator was 84% of
# inspector_tests' time (fmt parsing its format strings at run time).
function(collbench_timed_test_code)
  if(COLLBENCH_SANITIZE OR COLLBENCH_FUZZ)
    foreach(t IN LISTS ARGN)
      target_compile_options(${t} PRIVATE -O1)
    endforeach()
  endif()
endfunction()
