# Included from audit/CMakeLists.txt (tests on): proofs that cannot rot.

# Every patch in audit/mutants/ applies to the sources (git apply --check) and is
# named <calc id>--<name>.patch after a registered id; skipped (not passed) when
# the sources are not a git checkout. The checker's own teeth: a stale patch, an
# unknown id and a bad name fail it.
add_test(NAME audit.mutants_apply_and_name_registered_calculations
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_mutants_apply.py
          ${audit_tool} ${PROJECT_SOURCE_DIR})
set_tests_properties(audit.mutants_apply_and_name_registered_calculations PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME audit.mutants_check_fails_on_a_stale_patch_and_a_bad_id
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/mutants_apply_test.py
          ${audit_tool} ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/mutants-apply-test)

# Every function a registry entry cites exists, and the report's line range holds
# its definition; the checker fails on a missing, renamed or moved function.
add_test(NAME audit.sources_resolve
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_sources.py
          ${audit_tool} ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/audit-quick-float.json)
set_tests_properties(audit.sources_resolve PROPERTIES FIXTURES_REQUIRED audit_report_float)
add_test(NAME audit.sources_check_fails_on_a_missing_or_renamed_function
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/sources_resolve_test.py
          ${audit_tool} ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/audit-quick-float.json
          ${CMAKE_CURRENT_BINARY_DIR}/sources-resolve-test)
set_tests_properties(audit.sources_check_fails_on_a_missing_or_renamed_function PROPERTIES
  FIXTURES_REQUIRED audit_report_float)

# The teeth table: scripts/mutants.py builds it from gate --json (every budget,
# the mutants that trip it where the baseline passes, informational ones apart),
# and render --mutants shows it on the page.
add_test(NAME audit.mutants_teeth_table_counts_only_where_the_baseline_passes
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/mutants_teeth_test.py
          ${PROJECT_SOURCE_DIR}/scripts/mutants.py ${CMAKE_CURRENT_BINARY_DIR}/mutants-teeth-test)
add_test(NAME audit.gate_json_and_render_mutants_do_what_their_help_says
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/teeth_cli_test.py ${audit_tool}
          ${PROJECT_SOURCE_DIR}/reports/golden/small_report.json ${CMAKE_CURRENT_SOURCE_DIR}/gates.json
          ${CMAKE_CURRENT_BINARY_DIR}/teeth-cli-test)

# scripts/mutants patches the sources in place: whatever happens (an error, Ctrl-C,
# SIGTERM, a kill), the files are put back, and a stale patch changes nothing.
add_test(NAME audit.mutants_restore_the_sources_whatever_happens
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/mutants_restore_test.py
          ${PROJECT_SOURCE_DIR}/scripts/mutants.py ${CMAKE_CURRENT_BINARY_DIR}/mutants-restore-test)

# scripts/coverage's counting (on gcov output written by hand) and render --coverage.
add_test(NAME audit.coverage_counts_and_render_coverage_do_what_they_say
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/coverage_test.py ${audit_tool}
          ${PROJECT_SOURCE_DIR}/scripts/coverage.py ${PROJECT_SOURCE_DIR}/reports/golden/small_report.json
          ${CMAKE_CURRENT_BINARY_DIR}/coverage-test)
