# Precompiled headers for the targets with many translation units: the standard headers, fmt and
# nlohmann/json that most files include (and GoogleTest for the test programs) are parsed once per
# target instead of once per file, about a third of each file's compile time here.
#
#   COLLBENCH_PCH  default ON without a compiler launcher, OFF with one: ccache does not cache a
#                  file compiled against a precompiled header unless told to (its sloppiness
#                  settings), and a warm ccache is faster still. Either way each file keeps its own
#                  includes: builds without it (every ccache build, and the sanitizer build's
#                  clang when it is OFF) fail on a missing one.
option(COLLBENCH_PCH "Precompile the common headers of the larger targets" ${collbench_no_launcher})  # cmake/unity.cmake

set(COLLBENCH_PCH_HEADERS <algorithm> <cstdint> <filesystem> <functional> <map> <optional> <set> <string>
    <string_view> <vector> <fmt/format.h> <nlohmann/json.hpp>)

# collbench_precompile(TARGET... [TESTS TARGET...]): the common headers for each TARGET; TESTS
# targets get GoogleTest's too. Targets this configuration does not build are passed over.
function(collbench_precompile)
  if(NOT COLLBENCH_PCH)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "TESTS")
  foreach(t IN LISTS arg_UNPARSED_ARGUMENTS)
    if(TARGET ${t})
      target_precompile_headers(${t} PRIVATE ${COLLBENCH_PCH_HEADERS})
    endif()
  endforeach()
  foreach(t IN LISTS arg_TESTS)
    if(TARGET ${t})
      target_precompile_headers(${t} PRIVATE ${COLLBENCH_PCH_HEADERS} <gtest/gtest.h>)
    endif()
  endforeach()
endfunction()
