# Tests of the mount concern.
check_PROGRAMS += tests/unit/mount-plan-test tests/unit/protect-test tests/helpers/mount-sandbox \
	tests/helpers/nested-remount tests/helpers/deny-syscalls
tests_unit_mount_plan_test_SOURCES = tests/unit/mount-plan-test.c
tests_unit_mount_plan_test_LDADD = src/libsbx.a $(SBX_LIBS)
tests_helpers_mount_sandbox_SOURCES = tests/helpers/mount-sandbox.c
tests_helpers_mount_sandbox_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/mount-plan-test tests/unit/protect-test tests/unit/layers-test \
	tests/unit/layer-store-test tests/unit/dir-listing-test
check_PROGRAMS += tests/unit/layers-test tests/unit/layer-store-test tests/unit/dir-listing-test
tests_unit_dir_listing_test_SOURCES = tests/unit/dir-listing-test.c
tests_unit_dir_listing_test_LDADD = src/libsbx.a $(SBX_LIBS)
tests_unit_layer_store_test_SOURCES = tests/unit/layer-store-test.c
tests_unit_layer_store_test_LDADD = src/libsbx.a $(SBX_LIBS)
tests_unit_layers_test_SOURCES = tests/unit/layers-test.c
tests_unit_layers_test_LDADD = src/libsbx.a $(SBX_LIBS)
tests_unit_protect_test_SOURCES = tests/unit/protect-test.c
tests_unit_protect_test_LDADD = src/libsbx.a $(SBX_LIBS)
tests_helpers_nested_remount_SOURCES = tests/helpers/nested-remount.c
tests_helpers_deny_syscalls_SOURCES = tests/helpers/deny-syscalls.c
tests_helpers_deny_syscalls_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/integration/mount-helper.sh tests/integration/mount-legacy.sh \
	tests/integration/mount-filtered.sh tests/integration/mount-sbx.sh \
	tests/integration/escape-create.sh tests/integration/mount-placeholders.sh \
	tests/integration/mount-noattr.sh
EXTRA_DIST += tests/integration/mount-body.sh tests/integration/mount-helper.sh \
	tests/integration/mount-legacy.sh tests/integration/mount-filtered.sh \
	tests/integration/mount-sbx.sh tests/integration/escape-create.sh \
	tests/integration/mount-placeholders.sh tests/integration/mount-noattr.sh
