# Sources of the hardening concern (added to src/libsbx.a): the fault
# injection hook the fault-*.sh tests use.
src_libsbx_a_SOURCES += src/fault_hook.c src/fault_hook.h
