# Runs hloplan on one sample and compares its output byte for byte with the
# golden file.  -D HLOPLAN= INPUT= GOLDEN= OUTDIR= ARGS= (a ;-list).
get_filename_component(name ${GOLDEN} NAME)
set(out ${OUTDIR}/${name})
file(MAKE_DIRECTORY ${OUTDIR})
file(REMOVE ${out})
execute_process(COMMAND ${HLOPLAN} ${INPUT} ${ARGS} -o ${out}
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
