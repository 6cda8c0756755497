# Proves the gate has teeth: budgets of 0 for every measured error of
# grid.sample and grid.volume (which float storage never meets) must make
# 'distgrid-audit gate' exit 1, name both calculations with their worst input,
# and write JUnit XML with a failing testcase for each.
# Inputs: -DTOOL=distgrid-audit -DREPORT=report.json -DWORK_DIR=dir
foreach(var TOOL REPORT WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "gate_fails_below_measured.cmake needs -D${var}=...")
  endif()
endforeach()

set(budgets ${WORK_DIR}/gates-below-measured.json)
file(WRITE ${budgets} [=[
{
  "schema": "distgrid-audit-gates/1",
  "budgets": [
    {"id": "grid.key", "storage": "float", "metric": "/mismatches", "max": 0, "why": "keys are exact"},
    {"id": "grid.sample", "storage": "float", "metric": "/error/h/max", "max": 0, "why": "deliberately below the measured error"},
    {"id": "grid.volume", "storage": "float", "metric": "/error/relative/max", "max": 0, "why": "deliberately below the measured error"}
  ]
}
]=])

set(junit ${WORK_DIR}/gates-below-measured.xml)
file(REMOVE ${junit})
execute_process(COMMAND ${TOOL} gate ${REPORT} --budgets ${budgets} --junit ${junit}
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "gate output:\n${out}${err}")
if(NOT code EQUAL 1)
  message(FATAL_ERROR "expected exit code 1 from a gate with budgets below the measured errors, got '${code}'")
endif()
foreach(id grid.sample grid.volume)
  string(REGEX MATCH "FAIL ${id} float: /error/[a-z]+/max measured [^\n]* > budget 0" hit "${out}")
  if(NOT hit)
    message(FATAL_ERROR "the gate did not name ${id} float as failing")
  endif()
  string(REGEX MATCH "FAIL ${id} float: [^\n]*\n  worst: [^\n]*generator [a-z_]+ #[0-9]+, input [^\n]*result -?0x" hit "${out}")
  if(NOT hit)
    message(FATAL_ERROR "the gate did not print the worst input of ${id} float")
  endif()
endforeach()
if(out MATCHES "FAIL grid.key")
  message(FATAL_ERROR "the gate failed grid.key, whose budget is met")
endif()

file(READ ${junit} xml)
foreach(id grid.sample grid.volume)
  string(REGEX MATCH "<testcase classname=\"distgrid-audit.gate\" name=\"${id} float\">[^<]*<failure message=\"/error/" hit "${xml}")
  if(NOT hit)
    message(FATAL_ERROR "the JUnit file has no failing testcase for ${id} float:\n${xml}")
  endif()
endforeach()
if(NOT xml MATCHES "<testcase classname=\"distgrid-audit.gate\" name=\"grid.key float\"/>")
  message(FATAL_ERROR "the JUnit file does not pass grid.key float:\n${xml}")
endif()
