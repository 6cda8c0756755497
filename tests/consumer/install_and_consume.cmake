# Run by the CTest test package.install_and_consume (tests/CMakeLists.txt names the
# variables). Fails with a message naming what is missing.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  set(output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# The installed headers are exactly core/include: no tool-only header, none left out.
file(GLOB_RECURSE source_headers RELATIVE ${SOURCE_DIR}/core/include ${SOURCE_DIR}/core/include/*)
file(GLOB_RECURSE installed_headers RELATIVE ${prefix}/include ${prefix}/include/*)
if(NOT source_headers STREQUAL installed_headers)
  message(FATAL_ERROR "installed headers differ from core/include:\n${installed_headers}\nexpected:\n${source_headers}")
endif()
foreach(tool_only command_line.hpp)
  if(EXISTS ${prefix}/include/distgrid/${tool_only})
    message(FATAL_ERROR "the tool-only header ${tool_only} was installed")
  endif()
endforeach()

# The README's C++ quick-start: the block after the line "<!-- quickstart.cpp -->".
file(READ ${SOURCE_DIR}/README.md readme)
string(FIND "${readme}" "<!-- quickstart.cpp -->" start)
if(start EQUAL -1)
  message(FATAL_ERROR "README.md has no <!-- quickstart.cpp --> block")
endif()
string(SUBSTRING "${readme}" ${start} -1 readme)
string(REGEX MATCH "```cpp\n(.*)" block "${readme}")
string(FIND "${CMAKE_MATCH_1}" "```" block_end)
string(SUBSTRING "${CMAKE_MATCH_1}" 0 ${block_end} quickstart)
file(WRITE ${WORK_DIR}/quickstart.cpp "${quickstart}")

# The consumer sees the prefix only, and every library the core must not need is
# disabled for it.
set(disabled "")
foreach(package Boost GTest rapidcheck benchmark MPFR GMP OpenVDB)
  list(APPEND disabled -DCMAKE_DISABLE_FIND_PACKAGE_${package}=ON)
endforeach()
set(launcher "")
if(CXX_LAUNCHER)
  set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${CXX_LAUNCHER})
endif()
run("configuring the consumer" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${WORK_DIR}/build
    -G ${GENERATOR} -DCMAKE_CXX_COMPILER=${CXX} ${launcher} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${LINKER_FLAGS}" -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
    -DEXPECTED_PREFIX=${prefix} -DEXPECTED_VERSION=${VERSION} -DEXPECT_AUDIT=${AUDIT}
    -DQUICKSTART_SOURCE=${WORK_DIR}/quickstart.cpp ${disabled})
run("building the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run("the README's quick-start" ${WORK_DIR}/build/quickstart)
message(STATUS "quickstart:\n${output}")
run("the consumer's checks" ${WORK_DIR}/build/consumer_checks)
message(STATUS "consumer_checks:\n${output}")

# Both installed tools print the version and the git revision.
file(STRINGS ${WORK_DIR}/build/tools.txt tools)
foreach(tool IN LISTS tools)
  run("${tool} --version" ${tool} --version)
  if(NOT output MATCHES "^distgrid(-audit)? ${VERSION} \\(git ([0-9a-f]+|unknown)\\)")
    message(FATAL_ERROR "${tool} --version printed '${output}'")
  endif()
endforeach()

# The installed distgrid-audit, run from a directory far from the build and the
# sources, finds its default budgets and the sources it cites.
if(AUDIT)
  set(elsewhere ${WORK_DIR}/elsewhere)
  file(MAKE_DIRECTORY ${elsewhere})
  set(audit ${prefix}/bin/distgrid-audit)
  execute_process(COMMAND ${audit} run --storage float --only grid.key,grid.volume --part sphere --inputs 50
                          --out report.json
                  WORKING_DIRECTORY ${elsewhere} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "installed distgrid-audit run failed (${rc}):\n${out}\n${err}")
  endif()
  file(READ ${elsewhere}/report.json report)
  if(report MATCHES "lines_null_reason")
    message(FATAL_ERROR "the installed audit did not find the sources it cites:\n${report}")
  endif()
  string(JSON budgets GET "${report}" gate budgets)
  if(NOT budgets STREQUAL "audit/gates.json")
    message(FATAL_ERROR "the report names its budgets '${budgets}', not the installed audit/gates.json")
  endif()
  execute_process(COMMAND ${audit} gate report.json WORKING_DIRECTORY ${elsewhere}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "share/distgrid/audit/gates.json")
    message(FATAL_ERROR "installed distgrid-audit gate (${rc}) did not use the installed budgets:\n${out}\n${err}")
  endif()
  execute_process(COMMAND ${audit} render report.json --out page.html WORKING_DIRECTORY ${elsewhere}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(READ ${elsewhere}/page.html page)
  if(NOT rc EQUAL 0 OR page MATCHES "Code not shown")
    message(FATAL_ERROR "installed distgrid-audit render (${rc}) did not show the installed sources:\n${out}\n${err}")
  endif()
  message(STATUS "installed distgrid-audit: run, gate and render from ${elsewhere}")
endif()
