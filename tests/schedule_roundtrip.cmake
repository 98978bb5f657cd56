# The order a plan assumes, printed with --dump=hlo (is_scheduled=true),
# plans to the same buffers, offsets and intervals when read back.
# -D HLOPLAN= INPUT= OUTDIR=
get_filename_component(n ${INPUT} NAME_WE)
file(MAKE_DIRECTORY ${OUTDIR})
set(sched ${OUTDIR}/${n}.scheduled.hlo)
execute_process(COMMAND ${HLOPLAN} ${INPUT} --target=gpu --dump=hlo -o ${sched}
                RESULT_VARIABLE r1)
execute_process(COMMAND ${HLOPLAN} ${INPUT} --target=gpu --dump=plan
                OUTPUT_VARIABLE a RESULT_VARIABLE r2)
execute_process(COMMAND ${HLOPLAN} ${sched} --target=gpu --dump=plan
                OUTPUT_VARIABLE b RESULT_VARIABLE r3)
if(NOT r1 EQUAL 0 OR NOT r2 EQUAL 0 OR NOT r3 EQUAL 0)
  message(FATAL_ERROR "hloplan failed: ${r1} ${r2} ${r3}")
endif()
file(READ ${sched} text)
if(NOT text MATCHES "is_scheduled=true")
  message(FATAL_ERROR "${sched} is not marked is_scheduled=true")
endif()
if(NOT a STREQUAL b)
  message(FATAL_ERROR "the rescheduled module plans differently:\n${a}\n---\n${b}")
endif()
