# Sources of the run concern (added to src/libsbx.a).
src_libsbx_a_SOURCES += \
	src/sandbox.c src/plan.c src/plan.h \
	src/channel.c src/channel.h \
	src/ns.c src/ns.h \
	src/ns_diagnosis.c src/ns_diagnosis.h \
	src/apparmor.c src/apparmor.h \
	src/net.c src/net.h \
	src/hosts.c src/hosts.h \
	src/rlimits.c src/rlimits.h \
	src/cgroup.c src/cgroup.h \
	src/caps.c src/caps.h \
	src/foreign_owner.c src/foreign_owner.h \
	src/env.c src/env.h \
	src/env_paths.c src/env_paths.h \
	src/command.c src/command.h \
	src/init.c src/init.h \
	src/supervise.c src/supervise.h \
	src/terminal.c src/terminal_relay.c src/terminal.h \
	src/terminal_filter.c src/terminal_filter.h \
	src/tier.c src/tier.h \
	src/backend.h src/backend_ns.c src/backend_landlock.c \
	src/landlock.c src/landlock.h \
	src/landlock_net.c src/landlock_net.h \
	src/landlock_meta.c src/landlock_meta.h
EXTRA_DIST += docs/run.md
