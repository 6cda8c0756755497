# Proves the gate has teeth: budgets of 0 for every measured error of
# grid.sample and grid.volume (which float storage never meets) must make
# 'distgrid-audit gate' exit 1 and name both calculations.
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

execute_process(COMMAND ${TOOL} gate ${REPORT} --budgets ${budgets}
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
endforeach()
if(out MATCHES "FAIL grid.key")
  message(FATAL_ERROR "the gate failed grid.key, whose budget is met")
endif()
