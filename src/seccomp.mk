# Sources of the seccomp concern (added to src/libsbx.a).
src_libsbx_a_SOURCES += \
	src/seccomp.c src/seccomp.h \
	src/ledger.c src/ledger.h \
	src/audit.c src/audit.h \
	src/audit_cmd.c
EXTRA_DIST += docs/seccomp.md
