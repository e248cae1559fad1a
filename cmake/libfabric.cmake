# collbench_libfabric_loading(TARGET): how TARGET reaches libfabric (bench/ofi/libfabric.cpp). It opens
# the library on first use, asking for each entry point by the symbol version a link against this
# libfabric binds: a probe linked here at configure time tells which (nm --with-symbol-versions).
# Where the probe cannot tell, TARGET links libfabric as before (COLLBENCH_LIBFABRIC_LINKED).
function(collbench_libfabric_loading target)
  set(dir ${CMAKE_BINARY_DIR}/libfabric-probe)
  file(WRITE ${dir}/probe.cpp [=[
#include <rdma/fabric.h>
int main() {
  fi_info* i = fi_dupinfo(nullptr);
  fid_fabric* f = nullptr;
  fi_getinfo(fi_version(), nullptr, nullptr, 0, i, &i);
  fi_fabric(nullptr, &f, nullptr);
  fi_freeinfo(i);
  return fi_strerror(0) == nullptr;
}
]=])
  try_compile(probe_built ${dir}/build SOURCES ${dir}/probe.cpp
              CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${LIBFABRIC_INCLUDE_DIRS}"
              LINK_LIBRARIES ${LIBFABRIC_LINK_LIBRARIES} COPY_FILE ${dir}/probe)
  find_program(COLLBENCH_NM nm)
  set(defs "")
  if(probe_built AND COLLBENCH_NM)
    execute_process(COMMAND ${COLLBENCH_NM} -D --with-symbol-versions ${dir}/probe OUTPUT_VARIABLE syms
                    RESULT_VARIABLE nm_rc ERROR_QUIET)
    list(GET LIBFABRIC_LINK_LIBRARIES 0 linked)
    execute_process(COMMAND objdump -p ${linked} OUTPUT_VARIABLE dyn ERROR_QUIET)
    string(REGEX MATCH "SONAME +([^ \n]+)" soname "${dyn}")
    set(soname "${CMAKE_MATCH_1}")
    foreach(fn getinfo freeinfo dupinfo fabric version strerror)
      string(TOUPPER ${fn} FN)
      if(nm_rc EQUAL 0 AND soname AND syms MATCHES " fi_${fn}@+(FABRIC_[0-9.]+)")
        list(APPEND defs COLLBENCH_FI_${FN}_VERSION="${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endif()
  list(LENGTH defs found)
  if(found EQUAL 6)
    message(STATUS "libfabric: ${soname}, opened on first use")
    list(GET LIBFABRIC_LINK_LIBRARIES 0 linked)
    get_filename_component(libdir ${linked} DIRECTORY)
    target_compile_definitions(${target} PRIVATE COLLBENCH_LIBFABRIC_SONAME="${soname}"
                                                 COLLBENCH_LIBFABRIC_BUILT_WITH="${libdir}/${soname}" ${defs})
    target_include_directories(${target} PUBLIC ${LIBFABRIC_INCLUDE_DIRS})
    target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
  else()
    message(STATUS "libfabric: linked (its symbol versions could not be read from a probe)")
    target_compile_definitions(${target} PRIVATE COLLBENCH_LIBFABRIC_LINKED=1)
    target_link_libraries(${target} PUBLIC PkgConfig::LIBFABRIC)
  endif()
endfunction()
