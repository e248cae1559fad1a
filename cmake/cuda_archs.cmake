# The GPU architectures to build for, from the CUDA toolkit's version (CMAKE_ARGS may still set
# CMAKE_CUDA_ARCHITECTURES). sm_100 (B200) needs CUDA 12.8; sm_90 (H100/H200) 11.8; sm_80 (A100) 11.0.
# The newest listed architecture also gets PTX, so later GPUs still run.
function(collbench_cuda_archs version out)
  if(version VERSION_GREATER_EQUAL 12.8)
    set(archs 80 90 100)
  elseif(version VERSION_GREATER_EQUAL 11.8)
    set(archs 80 90)
  elseif(version VERSION_GREATER_EQUAL 11.0)
    set(archs 80)
  else()
    set(archs "")
  endif()
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

# nvcc's release ("12.4") from `nvcc --version`, before enable_language(CUDA) commits to it.
function(collbench_nvcc_version nvcc out)
  execute_process(COMMAND "${nvcc}" --version OUTPUT_VARIABLE text ERROR_QUIET RESULT_VARIABLE rc)
  set(version "")
  if(rc EQUAL 0 AND text MATCHES "release ([0-9]+\\.[0-9]+)")
    set(version "${CMAKE_MATCH_1}")
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()
