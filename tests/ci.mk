# Where sbx is used (issue 31): the GitHub Action and the GitLab job run
# step by step as their CI systems would, against a project with a false
# green.
TESTS += tests/integration/ci-action.sh
EXTRA_DIST += tests/integration/ci-action.sh tests/integration/yaml-flat.awk \
	.github/actions/sbx/action.yml .github/actions/sbx/install.sh \
	.github/actions/sbx/probe.sh .github/actions/sbx/test.sh \
	docs/ci/gitlab-ci.yml
# The agent harness hook: the decision table (hook.c), and `sbx hook
# claude-code` fed Claude Code's documented tool-call JSON.
check_PROGRAMS += tests/unit/hook-test
tests_unit_hook_test_SOURCES = tests/unit/hook-test.c tests/tap.h
tests_unit_hook_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/hook-test tests/integration/hook-claude.sh
EXTRA_DIST += tests/integration/hook-claude.sh
# Refusals an agent can act on: fix.c's lines, and sbx explain applied
# until the refused run passes.
check_PROGRAMS += tests/unit/fix-test
tests_unit_fix_test_SOURCES = tests/unit/fix-test.c tests/tap.h
tests_unit_fix_test_LDADD = src/libsbx.a $(SBX_LIBS)
TESTS += tests/unit/fix-test tests/integration/explain.sh tests/integration/profile-learn.sh
EXTRA_DIST += tests/integration/explain.sh tests/integration/profile-learn.sh \
	tests/integration/sample-net-test.py
