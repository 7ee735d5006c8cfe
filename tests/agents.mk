# The agents' sandboxes reproduced (issue 19): the battery of observable
# behaviours run under Codex CLI and sandbox-runtime themselves and under
# the shipped profiles that reproduce them, diffed row by row; and
# `sbx audit --against` with those profiles.
check_PROGRAMS += tests/helpers/agent-battery
TESTS += tests/integration/agents-battery.sh tests/integration/agents-audit.sh
EXTRA_DIST += tests/integration/agents-battery.sh tests/integration/agents-audit.sh
# The tools the test installs when $SBX_AGENT_TOOLS names none (a download
# cache of the build tree, kept by `make clean`, gone with distclean).
distclean-local:
	-rm -rf tests/agent-tools
