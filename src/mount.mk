# Sources of the mount concern (added to src/libsbx.a).
src_libsbx_a_SOURCES += \
	src/mount-plan.c src/mount-plan.h \
	src/mount-walk.c src/mount-walk.h \
	src/dir_listing.c src/dir_listing.h \
	src/mount-placeholders.c src/mount-placeholders.h \
	src/protect.c src/protect.h \
	src/layers.c src/layers.h \
	src/layer_store.c src/layer_store.h \
	src/mount.c src/mount.h \
	src/mount-api.c src/mount-api.h \
	src/mount-newapi.c \
	src/mount-legacy.c
EXTRA_DIST += docs/mount.md
