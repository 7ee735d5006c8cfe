# `make bench`: sbx against bubblewrap (timings are noisy: not in `make check`).
noinst_PROGRAMS += bench/stat-loop bench/call-cost
bench_stat_loop_SOURCES = bench/stat-loop.c
bench_call_cost_SOURCES = bench/call-cost.c
EXTRA_DIST += bench/bench.sh bench/egress.sh bench/cache.sh bench/writes.sh bench/ratios.sh \
	bench/ratios.recorded bench/audit-runners.sh bench/pairs.sh docs/performance.md
bench: src/sbx bench/stat-loop bench/call-cost tests/helpers/pty-run
	SBX=$(abs_top_builddir)/src/sbx STATLOOP=$(abs_top_builddir)/bench/stat-loop \
	CALLCOST=$(abs_top_builddir)/bench/call-cost PTYRUN=$(abs_top_builddir)/tests/helpers/pty-run \
	$(SHELL) $(top_srcdir)/bench/bench.sh
.PHONY: bench
