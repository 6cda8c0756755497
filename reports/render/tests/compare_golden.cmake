# Renders REPORT with TOOL into OUT and compares it with GOLDEN byte for byte.
# With the environment variable DISTGRID_UPDATE_GOLDEN=1 the golden file is
# replaced by the new page instead (and the test says so); never otherwise.
execute_process(COMMAND ${TOOL} render ${REPORT} --source-dir ${SOURCE_DIR} --out ${OUT}
  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "render failed (${status}): ${output}${errors}")
endif()
if("$ENV{DISTGRID_UPDATE_GOLDEN}" STREQUAL "1")
  configure_file(${OUT} ${GOLDEN} COPYONLY)
  message(STATUS "DISTGRID_UPDATE_GOLDEN=1: replaced ${GOLDEN}; review the difference before committing it")
  return()
endif()
if(NOT EXISTS ${GOLDEN})
  message(FATAL_ERROR "no golden page ${GOLDEN}; create it on purpose with DISTGRID_UPDATE_GOLDEN=1")
endif()
file(READ ${OUT} new_page HEX)
file(READ ${GOLDEN} golden_page HEX)
if(NOT new_page STREQUAL golden_page)
  message(FATAL_ERROR "the page rendered from ${REPORT} differs from ${GOLDEN} (new page: ${OUT}). "
                      "Compare them with 'diff'; if the change is intended, regenerate with "
                      "DISTGRID_UPDATE_GOLDEN=1 ctest -R reports.render.golden")
endif()
