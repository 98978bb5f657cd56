# The oracle over every module of one corpus folder (ORACLE, CORPUS, FOLDER,
# REFUSED, BUDGET: element operations, 0 for the oracle's default), or over
# the one module ONLY names: no plan may differ from the reference run
# unless verify refused it (oracle exit 1 is a wrong plan written), and the
# modules verify refuses (exit 3) are exactly those refused.txt lists (a
# folder leaves them to their own test).  Skips (77) and bad input (2) are
# counted and allowed: the first is the oracle's reach, the second issue
# 18's parser.
cmake_minimum_required(VERSION 3.13)
file(STRINGS ${REFUSED} lines REGEX "^[^#]")
set(listed "")
foreach(line ${lines})
  string(REGEX REPLACE "[ \t].*" "" path "${line}")
  list(APPEND listed ${path})
endforeach()
if(ONLY)
  set(files ${CORPUS}/${ONLY})
else()
  file(GLOB files ${CORPUS}/${FOLDER}/*.hlo)
endif()
set(bad "")
set(n 0)
set(counts "")
foreach(f ${files})
  file(RELATIVE_PATH rel ${CORPUS} ${f})
  if(NOT ONLY AND rel IN_LIST listed)
    continue()	# its own refused_ test
  endif()
  set(budget "")
  if(BUDGET)
    set(budget --budget ${BUDGET})
  endif()
  execute_process(COMMAND ${ORACLE} --quiet --fill-elided
      --max-arena 268435456 ${budget} ${f}
    OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  math(EXPR n "${n} + 1")
  list(APPEND counts "${rc}")
  if(rc EQUAL 1)
    string(APPEND bad "WRONG PLAN WRITTEN: ${rel}\n${out}\n")
  elseif(rc EQUAL 3 AND NOT rel IN_LIST listed)
    string(APPEND bad "refused, but not in refused.txt: ${rel}\n${out}\n")
  elseif(rel IN_LIST listed AND NOT rc EQUAL 3)
    string(APPEND bad "listed in refused.txt but the oracle exits ${rc} "
      "(take it off the list if it plans now): ${rel}\n${out}${err}\n")
  endif()
endforeach()
foreach(k 0 1 2 3 77)
  set(c${k} 0)
endforeach()
foreach(rc ${counts})
  if(DEFINED c${rc})
    math(EXPR c${rc} "${c${rc}} + 1")
  else()
    set(c2 "${c2}+")	# another status: counted as not planned
  endif()
endforeach()
message(STATUS "${n} modules: ${c0} same, ${c3} refused, ${c77} skipped, "
  "${c2} not planned (bad input or an error), ${c1} WRONG")
if(ONLY AND c77 EQUAL 1 AND NOT bad)
  message(STATUS "skipped: ${out}")
endif()
if(bad)
  message(FATAL_ERROR "${bad}")
endif()
