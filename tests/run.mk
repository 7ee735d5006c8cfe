# Tests of the run concern.
check_PROGRAMS += tests/helpers/run-driver
tests_helpers_run_driver_SOURCES = tests/helpers/run-driver.c
tests_helpers_run_driver_LDADD = src/libsbx.a $(SBX_LIBS)
