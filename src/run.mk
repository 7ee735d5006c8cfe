# Sources of the run concern (added to src/libsbx.a).
src_libsbx_a_SOURCES += \
	src/sandbox.c src/plan.c src/plan.h \
	src/channel.c src/channel.h \
	src/ns.c src/ns.h \
	src/ns_diagnosis.c src/ns_diagnosis.h \
	src/net.c src/net.h \
	src/rlimits.c src/rlimits.h \
	src/cgroup.c src/cgroup.h \
	src/caps.c src/caps.h \
	src/foreign_owner.c src/foreign_owner.h \
	src/env.c src/env.h \
	src/command.c src/command.h \
	src/init.c src/init.h \
	src/supervise.c src/supervise.h
EXTRA_DIST += docs/run.md
