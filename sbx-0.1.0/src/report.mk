# Sources of the run record (`--report`, added to src/libsbx.a): the
# event log, its replay, the document, the file; and the JSON and
# output-file helpers it shares with `sbx probe`.
src_libsbx_a_SOURCES += src/report.c src/report.h src/report_record.h \
	src/report_events.c src/report_replay.c \
	src/report_document.c src/report_document.h \
	src/report_file.c \
	src/json_bytes.c src/json_bytes.h \
	src/output_file.c src/output_file.h
