# Runs hloplan on one sample and compares its output byte for byte with the
# golden file: the header, or for NAME.json the JSON plan (--json), for
# NAME.csv the CSV (--csv), for NAME.STAGE.dump --dump=STAGE, for
# NAME.stats what --stats prints but its time line, for NAME.stats.json
# --stats-json with "time_ms" emptied (times differ from run to run).
# -D HLOPLAN= INPUT= GOLDEN= OUTDIR= ARGS= (a ;-list).
get_filename_component(name ${GOLDEN} NAME)
set(out ${OUTDIR}/${name})
set(flag -o)
if(name MATCHES "\\.stats\\.json$")
  set(flag --stats-json)
elseif(name MATCHES "\\.json$")
  set(flag --json)
elseif(name MATCHES "\\.csv$")
  set(flag --csv)
elseif(name MATCHES "\\.([a-z]+)\\.dump$")
  set(flag --dump=${CMAKE_MATCH_1} -o)
elseif(name MATCHES "\\.stats$")
  set(flag --stats -o)
endif()
file(MAKE_DIRECTORY ${OUTDIR})
file(REMOVE ${out})
execute_process(COMMAND ${HLOPLAN} ${INPUT} ${ARGS} ${flag} ${out}
                WORKING_DIRECTORY ${OUTDIR} RESULT_VARIABLE r
                ERROR_VARIABLE stderr)
if(NOT r EQUAL 0)
  message(FATAL_ERROR "hloplan exited ${r} on ${INPUT}: ${stderr}")
endif()
if(name MATCHES "\\.stats$")
  string(REGEX REPLACE "hloplan: (time|allocator replays) [^\n]*\n" ""
         stderr "${stderr}")
  file(WRITE ${out} "${stderr}")
elseif(name MATCHES "\\.stats\\.json$")
  file(READ ${out} text)
  string(REGEX REPLACE "\"time_ms\": {[^}]*}" "\"time_ms\": {}" text
         "${text}")
  file(WRITE ${out} "${text}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${GOLDEN} ${out}
                RESULT_VARIABLE d)
if(NOT d EQUAL 0)
  execute_process(COMMAND diff -u ${GOLDEN} ${out})
  message(FATAL_ERROR "${out} differs from ${GOLDEN}; if the change is "
          "meant, run tests/regen_golden.sh and say why in the commit")
endif()
