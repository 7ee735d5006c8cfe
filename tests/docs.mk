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
# docs/agents.md's Codex CLI files, given to the real Codex (issue 31).
TESTS += tests/integration/docs-agents-codex.sh
EXTRA_DIST += tests/integration/docs-agents-codex.sh tests/integration/codex-model.py
# The man pages' examples, run as written (issue 29).
TESTS += tests/integration/docs-examples.sh
EXTRA_DIST += tests/integration/docs-examples.sh
