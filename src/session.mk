# Sources of the session concern (outbound network through pasta).
src_libsbx_a_SOURCES += src/outbound.c src/outbound.h
src_libsbx_a_SOURCES += src/resolv.c src/resolv.h
src_libsbx_a_SOURCES += src/egress.c src/egress.h src/egress_wire.c src/egress_wire.h
