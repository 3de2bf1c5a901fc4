cmake_minimum_required(VERSION 3.25)
# Writes OUT, the manual page kalah(1): TEMPLATE (docs/kalah.1.in) with @VERSION@ replaced, its
# line `.\" @RULE SETS@` replaced by what `KALAH help --man-rules` prints and its line
# `.\" @COMMAND SECTIONS@` by what `KALAH help --man-sections` prints.
# Usage: cmake -DKALAH=path/to/kalah -DTEMPLATE=docs/kalah.1.in -DVERSION=0.2 -DOUT=kalah.1 -P man_page.cmake
file(READ ${TEMPLATE} page)
foreach(part "RULE SETS;--man-rules" "COMMAND SECTIONS;--man-sections")
  list(GET part 0 name)
  list(GET part 1 flag)
  execute_process(COMMAND ${KALAH} help ${flag}
    OUTPUT_VARIABLE text ERROR_VARIABLE errors RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${KALAH} help ${flag} failed (${status}): ${errors}")
  endif()
  set(marker ".\\\" @${name}@\n")
  string(FIND "${page}" "${marker}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${TEMPLATE} has no line '.\\\" @${name}@'")
  endif()
  string(REPLACE "${marker}" "${text}" page "${page}")
endforeach()
string(REPLACE "@VERSION@" "${VERSION}" page "${page}")
file(WRITE ${OUT} "${page}")
