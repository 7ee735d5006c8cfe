# libFuzzer targets (clang from Debian: clang, libclang-rt-14-dev).
#   make fuzz                 build the targets, run each FUZZ_SECONDS
#   make fuzz FUZZ_SECONDS=600
# Not part of `make check`; .ci/run calls it. Corpora: tests/fuzz/corpus/.
FUZZ_CC = clang
FUZZ_SECONDS = 60
FUZZ_CFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I$(top_builddir) -iquote $(top_srcdir)/src $(AM_CPPFLAGS) $(LIBCAP_CFLAGS) \
	$(INIH_CFLAGS) $(LIBSECCOMP_CFLAGS) $(JSONC_CFLAGS)
FUZZ_CORE = $(top_srcdir)/src/profile.c $(top_srcdir)/src/profile_keys.c \
	$(top_srcdir)/src/profile_ini.c $(top_srcdir)/src/profile_values.c $(top_srcdir)/src/net_families.c \
	$(top_srcdir)/src/profile_print.c $(top_srcdir)/src/profile_json.c \
	$(top_srcdir)/src/json_bytes.c $(top_srcdir)/src/lookup.c $(top_srcdir)/src/util.c $(top_srcdir)/src/layers.c \
	$(top_srcdir)/src/log.c $(top_srcdir)/src/allowlist.c $(top_srcdir)/src/credential_stores.c
FUZZ_LIBS = $(INIH_LIBS) $(LIBSECCOMP_LIBS) $(LIBCAP_LIBS) $(JSONC_LIBS)

tests/fuzz/profile-fuzz: $(top_srcdir)/tests/fuzz/profile-fuzz.c $(FUZZ_CORE)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ $(FUZZ_LIBS)
tests/fuzz/cli-fuzz: $(top_srcdir)/tests/fuzz/cli-fuzz.c $(top_srcdir)/src/cli.c \
		$(top_srcdir)/src/project.c $(FUZZ_CORE)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ $(FUZZ_LIBS)
# every runner family (runners as data: runner.c lists them)
FUZZ_RUNNERS = $(top_srcdir)/src/runner.c $(top_srcdir)/src/runner_parse.c $(top_srcdir)/src/runner_report.c \
	$(top_srcdir)/src/runner_cargo.c $(top_srcdir)/src/runner_python.c \
	$(top_srcdir)/src/runner_go.c $(top_srcdir)/src/runner_node.c $(top_srcdir)/src/runner_npm.c \
	$(top_srcdir)/src/runner_tap.c $(top_srcdir)/src/runner_ctest.c
tests/fuzz/runner-fuzz: $(top_srcdir)/tests/fuzz/runner-fuzz.c $(FUZZ_RUNNERS) $(FUZZ_CORE)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ $(FUZZ_LIBS)

# includes egress.c itself, to reach its parsers; links egress_wire.c
tests/fuzz/egress-fuzz: $(top_srcdir)/tests/fuzz/egress-fuzz.c $(top_srcdir)/src/egress.c \
		$(top_srcdir)/src/egress_wire.c $(top_srcdir)/src/fix.c $(FUZZ_CORE)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) $(LIBNL_CFLAGS) -o $@ $(top_srcdir)/tests/fuzz/egress-fuzz.c \
	  $(top_srcdir)/src/egress_wire.c $(top_srcdir)/src/fix.c $(FUZZ_CORE) \
	  $(FUZZ_LIBS) $(LIBNL_LIBS) -lpthread

# issue 31: the agent hook's command-line reader, and fix lines
tests/fuzz/hook-fuzz: $(top_srcdir)/tests/fuzz/hook-fuzz.c $(top_srcdir)/src/hook.c \
		$(top_srcdir)/src/fix.c $(FUZZ_CORE)
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^ $(FUZZ_LIBS)

tests/fuzz/terminal-fuzz: $(top_srcdir)/tests/fuzz/terminal-fuzz.c $(top_srcdir)/src/terminal_filter.c
	$(AM_V_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(top_srcdir)/tests/fuzz/terminal-fuzz.c

# Each target runs in a scratch copy of its corpus so the seeds stay as
# committed; a crash leaves its input in tests/fuzz/crash-*.
fuzz: tests/fuzz/profile-fuzz tests/fuzz/cli-fuzz tests/fuzz/runner-fuzz tests/fuzz/egress-fuzz \
		tests/fuzz/hook-fuzz tests/fuzz/terminal-fuzz
	@set -e; for t in profile cli runner egress hook terminal; do \
	  work=$$(mktemp -d); cp $(top_srcdir)/tests/fuzz/corpus/$$t/* $$work/; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  ./tests/fuzz/$$t-fuzz -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -max_len=4096 -artifact_prefix=tests/fuzz/crash-$$t- -print_final_stats=1 $$work \
	    2>tests/fuzz/$$t-fuzz.log || { tail -40 tests/fuzz/$$t-fuzz.log; rm -rf $$work; exit 1; }; \
	  grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' tests/fuzz/$$t-fuzz.log | sed "s/^/fuzz: $$t /"; \
	  rm -rf $$work; \
	done
.PHONY: fuzz
CLEANFILES += tests/fuzz/profile-fuzz tests/fuzz/cli-fuzz tests/fuzz/runner-fuzz tests/fuzz/egress-fuzz \
	tests/fuzz/hook-fuzz tests/fuzz/terminal-fuzz \
	tests/fuzz/*.log
EXTRA_DIST += tests/fuzz
