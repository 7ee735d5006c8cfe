# Tests of the profile engine. tests/profiles/ holds the malformed-profile
# corpus (first line of each: the error it must produce).
TESTS += tests/integration/profile-errors.sh
EXTRA_DIST += tests/integration/profile-errors.sh tests/profiles

check_PROGRAMS += tests/unit/profile-test
tests_unit_profile_test_SOURCES = tests/unit/profile-test.c
tests_unit_profile_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/profile-test

check_PROGRAMS += tests/unit/project-test
tests_unit_project_test_SOURCES = tests/unit/project-test.c
tests_unit_project_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/project-test
