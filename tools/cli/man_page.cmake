cmake_minimum_required(VERSION 3.25)
# Writes OUT, the manual page kalah(1): TEMPLATE (docs/kalah.1.in) with @VERSION@ replaced and its
# line `.\" @COMMAND SECTIONS@` replaced by what `KALAH help --man-sections` prints.
# Usage: cmake -DKALAH=path/to/kalah -DTEMPLATE=docs/kalah.1.in -DVERSION=0.2 -DOUT=kalah.1 -P man_page.cmake
execute_process(COMMAND ${KALAH} help --man-sections
  OUTPUT_VARIABLE sections ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${KALAH} help --man-sections failed (${status}): ${errors}")
endif()
file(READ ${TEMPLATE} page)
set(marker ".\\\" @COMMAND SECTIONS@\n")
string(FIND "${page}" "${marker}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${TEMPLATE} has no line '.\\\" @COMMAND SECTIONS@'")
endif()
string(REPLACE "${marker}" "${sections}" page "${page}")
string(REPLACE "@VERSION@" "${VERSION}" page "${page}")
file(WRITE ${OUT} "${page}")
