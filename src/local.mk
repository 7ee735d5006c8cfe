# The launcher. Everything but main.c lives in a convenience library so the
# unit tests link the same objects the binary does.
noinst_LIBRARIES += src/libsbx.a
src_libsbx_a_SOURCES = \
	src/log.c src/log.h \
	src/util.c src/util.h \
	src/profile.c src/profile.h \
	src/lookup.c src/lookup.h \
	src/cli.c src/cli.h \
	src/commands.h \
	src/run_cmd.c \
	src/profile_cmd.c \
	src/sandbox.h

bin_PROGRAMS += src/sbx
src_sbx_SOURCES = src/main.c
src_sbx_LDADD = src/libsbx.a $(SBX_LIBS)

include src/run.mk
include src/mount.mk
include src/seccomp.mk
include src/probe.mk
include src/session.mk
include src/harden.mk
