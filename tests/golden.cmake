# Runs hloplan on one sample and compares its output byte for byte with the
# golden file: the header, or for NAME.json the JSON plan (--json), for
# NAME.csv the CSV (--csv), for NAME.STAGE.dump --dump=STAGE.
# -D HLOPLAN= INPUT= GOLDEN= OUTDIR= ARGS= (a ;-list).
get_filename_component(name ${GOLDEN} NAME)
set(out ${OUTDIR}/${name})
set(flag -o)
if(name MATCHES "\\.json$")
  set(flag --json)
elseif(name MATCHES "\\.csv$")
  set(flag --csv)
elseif(name MATCHES "\\.([a-z]+)\\.dump$")
  set(flag --dump=${CMAKE_MATCH_1} -o)
endif()
file(MAKE_DIRECTORY ${OUTDIR})
file(REMOVE ${out})
execute_process(COMMAND ${HLOPLAN} ${INPUT} ${ARGS} ${flag} ${out}
                WORKING_DIRECTORY ${OUTDIR} RESULT_VARIABLE r)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "hloplan exited ${r} on ${INPUT}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${GOLDEN} ${out}
                RESULT_VARIABLE d)
if(NOT d EQUAL 0)
  execute_process(COMMAND diff -u ${GOLDEN} ${out})
  message(FATAL_ERROR "${out} differs from ${GOLDEN}; if the change is "
          "meant, run tests/regen_golden.sh and say why in the commit")
endif()
