# Where sbx is used (issue 31): agent harness hooks.
src_libsbx_a_SOURCES += \
	src/hook.c src/hook.h \
	src/hook_cmd.c \
	src/fix.c src/fix.h \
	src/explain_cmd.c src/explain.h \
	src/learn_cmd.c
