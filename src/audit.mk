# Sources of `sbx audit` (added to src/libsbx.a): the pure verdict and the
# command.
src_libsbx_a_SOURCES += src/audit.c src/audit.h src/audit_cmd.c \
	src/audit_tests.c src/audit_tests.h src/capture.c src/capture.h \
	src/audit_per_test.c src/audit_per_test.h src/audit_attrib.c src/audit_attrib.h src/audit_signals.c src/audit_signals.h \
	src/audit_ci.c src/audit_ci.h src/audit_ci_out.c src/audit_ci_out.h
# What the audit says against the truth, read by hand (issues 33, 34).
EXTRA_DIST += docs/audit-precision.md
