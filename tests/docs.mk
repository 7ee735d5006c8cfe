# Tests of the documentation: the man pages against the code, the agent
# guide's commands, the bash completion.
TESTS += tests/integration/docs-man.sh \
	tests/integration/docs-completion.sh
EXTRA_DIST += tests/integration/docs-man.sh \
	tests/integration/docs-completion.sh
