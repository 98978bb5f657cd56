# Runs hloplan --programs on one bad declaration from tests/joint_errors
# (cd joint_errors && hloplan --programs NAME.txt -o out.h --json out.json)
# and requires exit status 1 (NAME.status: another), stderr equal byte for
# byte to NAME.err, and no output left behind.
# -D HLOPLAN= NAME= DIR= OUTDIR=
# To regenerate one on purpose: cd tests/joint_errors &&
#   hloplan --programs NAME.txt -o /tmp/out.h 2> NAME.err   (read the diff)
set(out ${OUTDIR}/${NAME}.h)
set(json ${OUTDIR}/${NAME}.json)
set(status 1)
if(EXISTS ${DIR}/${NAME}.status)
  file(STRINGS ${DIR}/${NAME}.status status LIMIT_COUNT 1)
endif()
file(MAKE_DIRECTORY ${OUTDIR})
file(REMOVE ${out} ${json})
execute_process(COMMAND ${HLOPLAN} --programs ${NAME}.txt -o ${out}
                --json ${json}
                WORKING_DIRECTORY ${DIR} RESULT_VARIABLE r
                OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
file(READ ${DIR}/${NAME}.err want)
file(GLOB left ${out} ${out}.tmp* ${json} ${json}.tmp*)
if(NOT r STREQUAL "${status}")
  message(FATAL_ERROR "hloplan --programs ${NAME}.txt exited '${r}', not "
          "${status}:\n${stderr}")
endif()
if(left)
  message(FATAL_ERROR "hloplan --programs ${NAME}.txt left output behind: "
          "${left}")
endif()
if(NOT stdout STREQUAL "")
  message(FATAL_ERROR "hloplan --programs ${NAME}.txt wrote to stdout:\n"
          "${stdout}")
endif()
if(NOT stderr STREQUAL want)
  file(WRITE ${OUTDIR}/${NAME}.err ${stderr})
  execute_process(COMMAND diff -u ${DIR}/${NAME}.err ${OUTDIR}/${NAME}.err)
  message(FATAL_ERROR "the diagnostics for ${NAME}.txt differ from "
          "${NAME}.err")
endif()
