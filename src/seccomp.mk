# Sources of the seccomp concern (added to src/libsbx.a).
src_libsbx_a_SOURCES += \
	src/seccomp.c src/seccomp.h \
	src/seccomp_packet.c src/seccomp_packet.h \
	src/seccomp_cache.c src/seccomp_cache_file.c src/seccomp_cache.h \
	src/seccomp_observe.c src/seccomp_observe.h \
	src/refusals.c src/refusals.h \
	src/ledger.c src/ledger.h \
	src/ledger_argv.c src/ledger_argv.h
EXTRA_DIST += docs/seccomp.md
