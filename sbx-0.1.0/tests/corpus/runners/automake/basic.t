#!/bin/sh
# Per-test results corpus for TAP (prove, automake): passing, failing,
# skipped, todo, a description with a directive-like hash, diagnostics.
echo "1..6"
echo "ok 1 - passes"
echo "not ok 2 - fails"
echo "# diagnostic line"
echo "ok 3 - skipped # SKIP needs the network"
echo "not ok 4 - todo # TODO not written yet"
echo "ok 5 - hash \# in the name"
echo "ok 6"
