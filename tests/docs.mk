# Tests of the documentation: the man pages against the code, every sbx
# command of the agent guide, the bash completion, docs/hacking.md against
# the source tree.
TESTS += tests/integration/docs-man.sh \
	tests/integration/docs-agents.sh \
	tests/integration/docs-completion.sh \
	tests/integration/docs-hacking.sh
EXTRA_DIST += tests/integration/docs-man.sh \
	tests/integration/docs-agents.sh \
	tests/integration/docs-completion.sh \
	tests/integration/docs-hacking.sh docs/hacking.md
# The man pages' examples, run as written (issue 29).
TESTS += tests/integration/docs-examples.sh
EXTRA_DIST += tests/integration/docs-examples.sh
