# Run by `cmake --install` and cpack (cmake/packaging.cmake sets COLLBENCH_HELP_BIN, the binary being
# installed, and COLLBENCH_HELP_WORK, a scratch folder): writes share/doc/collbench/collbench-help.txt
# (`collbench --help` and every `collbench COMMAND --help`) and, when help2man is on PATH,
# share/man/man1/collbench.1.gz from the same text.
set(doc_dir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/share/doc/collbench")
set(man_dir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/share/man/man1")
file(MAKE_DIRECTORY "${doc_dir}")

execute_process(COMMAND "${COLLBENCH_HELP_BIN}" --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${COLLBENCH_HELP_BIN} --help failed (${rc}): no help page")
endif()
# subcommands(HELP OUT): the first word of each indented line of HELP's "Subcommands:" list (CLI11).
function(subcommands help out)
  string(REGEX MATCH "Subcommands:\n.*" listing "${help}")
  string(REGEX MATCHALL "\n  [a-z][a-z0-9-]*" names "${listing}")
  list(TRANSFORM names STRIP)
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

# Every command, and every command's own commands (`thresholds derive`, `launch slurm`), in order.
set(text "${help}")
set(man_commands "")
subcommands("${help}" pending)
while(NOT pending STREQUAL "")
  list(POP_FRONT pending command)
  string(REPLACE " " ";" words "${command}")
  execute_process(COMMAND "${COLLBENCH_HELP_BIN}" ${words} --help OUTPUT_VARIABLE sub RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "collbench ${command} --help failed (${rc})")
  endif()
  subcommands("${sub}" nested)
  list(TRANSFORM nested PREPEND "${command} ")
  list(PREPEND pending ${nested})
  string(APPEND text "\n\n===== collbench ${command} --help =====\n\n${sub}")
  # roff: a backslash is \e, and a line that starts with . or ' is not a request.
  string(REPLACE "\\" "\\e" sub "${sub}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" sub "${sub}")
  string(APPEND man_commands ".SS collbench ${command}\n.nf\n${sub}\n.fi\n")
endwhile()
file(WRITE "${doc_dir}/collbench-help.txt" "${text}")
message(STATUS "Installing: ${doc_dir}/collbench-help.txt")

find_program(HELP2MAN help2man)
if(NOT HELP2MAN)
  message(STATUS "help2man not found: no man page (the help is in ${doc_dir}/collbench-help.txt)")
  return()
endif()
file(MAKE_DIRECTORY "${man_dir}")
set(include "${COLLBENCH_HELP_WORK}/collbench-man.h2m")
file(WRITE "${include}"
     "[COMMANDS]\nEach command's own options (collbench COMMAND --help):\n${man_commands}\n"
     "[SEE ALSO]\n/usr/share/doc/collbench/README.md and the pages beside it; "
     "/usr/share/collbench/thresholds/ for the thresholds and known issues.\n")
execute_process(COMMAND "${HELP2MAN}" --no-info --no-discard-stderr --section=1
                        "--name=judges NCCL and EFA bandwidth on GPU clusters" "--include=${include}"
                        "--output=${man_dir}/collbench.1" "${COLLBENCH_HELP_BIN}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed (${rc})")
endif()
file(REMOVE "${man_dir}/collbench.1.gz")
execute_process(COMMAND gzip -9n "${man_dir}/collbench.1" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip of the man page failed (${rc})")
endif()
message(STATUS "Installing: ${man_dir}/collbench.1.gz")
