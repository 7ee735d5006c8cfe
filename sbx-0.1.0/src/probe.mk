# Sources of the probe concern (added to src/libsbx.a): `sbx probe`.
src_libsbx_a_SOURCES += \
	src/probe.c src/probe.h \
	src/probe_cmd.c \
	src/probe_verdict.c src/probe_verdict.h \
	src/probe_credentials.c src/probe_credentials.h \
	src/probe_output.c src/probe_output.h \
	src/probe_profile.c src/probe_profile.h
# The JSON keys of `sbx probe --json` and of the run record, installed next
# to agents.md (sbx(1) points at them).
probedocdir = $(docdir)
dist_probedoc_DATA = docs/probe-json.md docs/run-record.md
