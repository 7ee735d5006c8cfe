# Sources of the probe concern (added to src/libsbx.a): `sbx probe`, the run
# record (`--report`) and the JSON helpers both share.
src_libsbx_a_SOURCES += \
	src/json_bytes.c src/json_bytes.h \
	src/probe.c src/probe.h \
	src/probe_cmd.c \
	src/probe_verdict.c src/probe_verdict.h \
	src/probe_credentials.c src/probe_credentials.h \
	src/probe_output.c src/probe_output.h \
	src/probe_profile.c src/probe_profile.h \
	src/output_file.c src/output_file.h
src_libsbx_a_SOURCES += src/report.c src/report.h src/report_record.h \
	src/report_events.c src/report_replay.c \
	src/report_document.c src/report_document.h \
	src/report_file.c
# The JSON keys of `sbx probe --json` and of the run record, installed next
# to agents.md (sbx(1) points at them).
probedocdir = $(docdir)
dist_probedoc_DATA = docs/probe-json.md docs/run-record.md
