#!/usr/bin/perl
# Test::More subtests: indented TAP under "# Subtest: NAME".
use strict;
use warnings;
use Test::More tests => 2;
subtest 'outer' => sub {
    plan tests => 2;
    ok(1, 'inner passes');
    subtest 'deeper' => sub {
        ok(0, 'deepest fails');
        done_testing();
    };
};
ok(1, 'after');
