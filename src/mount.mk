# Sources of the mount concern (added to src/libsbx.a).
src_libsbx_a_SOURCES += \
	src/mount-plan.c src/mount-plan.h \
	src/mount-walk.c src/mount-walk.h \
	src/protect.c src/protect.h \
	src/mount.c src/mount.h
EXTRA_DIST += docs/mount.md
