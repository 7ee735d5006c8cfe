# `make bench`: sbx against bubblewrap (timings are noisy: not in `make check`).
noinst_PROGRAMS += bench/stat-loop
bench_stat_loop_SOURCES = bench/stat-loop.c
EXTRA_DIST += bench/bench.sh
bench: src/sbx bench/stat-loop
	SBX=$(abs_top_builddir)/src/sbx STATLOOP=$(abs_top_builddir)/bench/stat-loop $(SHELL) $(top_srcdir)/bench/bench.sh
.PHONY: bench
