# The launcher. Everything but main.c lives in a convenience library so the
# unit tests link the same objects the binary does.
noinst_LIBRARIES += src/libsbx.a
src_libsbx_a_SOURCES = \
	src/exit.h \
	src/log.c src/log.h \
	src/util.c src/util.h \
	src/profile.c src/profile.h \
	src/profile_keys.c src/profile_keys.h \
	src/profile_ini.c src/profile_ini.h \
	src/profile_values.c \
	src/net_families.c src/net_families.h \
	src/profile_print.c \
	src/profile_json.c src/profile_json.h \
	src/allowlist.c src/allowlist.h \
	src/credential_stores.c src/credential_stores.h \
	src/lookup.c src/lookup.h \
	src/cli.c src/cli.h \
	src/project.c src/project.h \
	src/commands.h \
	src/run_cmd.c \
	src/profile_cmd.c \
	src/cache_cmd.c \
	src/sandbox.h

bin_PROGRAMS += src/sbx
src_sbx_SOURCES = src/main.c
# A static PIE by default (configure.ac says why). valgrind cannot follow
# malloc() in a static program, so `make valgrind` uses src/sbx-dynamic:
# the same objects, linked dynamically, built on demand. The linker warns
# that getaddrinfo and getprotobyname need glibc's shared libraries at run
# time: libnl's utils.o brings them for nl_addr_resolve() and
# nl_str2ip_proto(), which sbx never calls; tests/integration/build-nss.sh
# checks that sbx's own objects call no NSS function.
if STATIC_BINARY
src_sbx_LDFLAGS = $(AM_LDFLAGS) $(SBX_BIN_LDFLAGS)
src_sbx_LDADD = src/libsbx.a $(SBX_BIN_LIBS)
EXTRA_PROGRAMS = src/sbx-dynamic
src_sbx_dynamic_SOURCES = src/main.c
src_sbx_dynamic_LDADD = src/libsbx.a $(SBX_LIBS)
CLEANFILES += src/sbx-dynamic
VALGRIND_SBX = src/sbx-dynamic
else
src_sbx_LDADD = src/libsbx.a $(SBX_LIBS)
VALGRIND_SBX = src/sbx
endif

include src/run.mk
include src/mount.mk
include src/seccomp.mk
include src/probe.mk
include src/report.mk
include src/audit.mk
include src/runner.mk
include src/session.mk
include src/harden.mk
include src/where.mk
