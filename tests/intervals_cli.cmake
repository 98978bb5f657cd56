# --intervals mode: a raw packing problem in minimalloc's CSV.  A good
# input's solution is compared byte for byte with NAME.expected.csv, and a
# second run must write the same bytes; a bad one (NAME.err beside it) must
# exit 1 with exactly those diagnostics and leave no output.  With
# NAME.stats beside it, --stats must print a line starting with its text.
# -D HLOPLAN= DIR= (tests/intervals or the corpus) NAME= OUTDIR=
file(MAKE_DIRECTORY ${OUTDIR})
set(out ${OUTDIR}/${NAME}.out.csv)
set(again ${OUTDIR}/${NAME}.again.csv)
file(REMOVE ${out} ${again})
execute_process(COMMAND ${HLOPLAN} --intervals ${NAME}.csv -o ${out}
                WORKING_DIRECTORY ${DIR} RESULT_VARIABLE r
                ERROR_VARIABLE stderr)
if(EXISTS ${DIR}/${NAME}.err)
  file(READ ${DIR}/${NAME}.err want)
  if(NOT r EQUAL 1 OR EXISTS ${out} OR NOT stderr STREQUAL want)
    message(FATAL_ERROR "${NAME}: exit ${r}, stderr:\n${stderr}")
  endif()
  return()
endif()
if(NOT r EQUAL 0)
  message(FATAL_ERROR "${NAME}: exit ${r}:\n${stderr}")
endif()
execute_process(COMMAND ${HLOPLAN} --intervals ${NAME}.csv -o ${again}
                WORKING_DIRECTORY ${DIR} RESULT_VARIABLE r)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${out} ${again}
                RESULT_VARIABLE d)
if(NOT r EQUAL 0 OR NOT d EQUAL 0)
  message(FATAL_ERROR "${NAME}: a second run wrote other bytes")
endif()
if(EXISTS ${DIR}/${NAME}.expected.csv)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
                  ${DIR}/${NAME}.expected.csv ${out} RESULT_VARIABLE d)
  if(NOT d EQUAL 0)
    message(FATAL_ERROR "${NAME}: differs from ${NAME}.expected.csv")
  endif()
endif()
if(EXISTS ${DIR}/${NAME}.stats)
  file(READ ${DIR}/${NAME}.stats want)
  execute_process(COMMAND ${HLOPLAN} --intervals ${NAME}.csv --stats
                  -o ${again} WORKING_DIRECTORY ${DIR} ERROR_VARIABLE stderr)
  string(FIND "${stderr}" "${want}" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "${NAME}: --stats printed\n${stderr}\nnot\n${want}")
  endif()
endif()
