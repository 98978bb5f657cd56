# Plans one corpus file for gpu, tpu and both; each must exit 0 (which means
# every module planned and passed the verifier) and write a header.
get_filename_component(n ${INPUT} NAME_WE)
file(MAKE_DIRECTORY ${OUTDIR})
foreach(t gpu tpu all)
  set(out ${OUTDIR}/${n}_${t}.h)
  file(REMOVE ${out})
  execute_process(COMMAND ${HLOPLAN} ${INPUT} --target=${t} -o ${out}
                  RESULT_VARIABLE r)
  if(NOT r EQUAL 0 OR NOT EXISTS ${out})
    message(FATAL_ERROR "hloplan --target=${t} ${INPUT} exited ${r}")
  endif()
endforeach()
