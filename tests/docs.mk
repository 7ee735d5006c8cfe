# Tests of the documentation: the man pages against the code, every sbx
# command of the agent guide, the bash completion.
TESTS += tests/integration/docs-man.sh \
	tests/integration/docs-agents.sh \
	tests/integration/docs-completion.sh
EXTRA_DIST += tests/integration/docs-man.sh \
	tests/integration/docs-agents.sh \
	tests/integration/docs-completion.sh
