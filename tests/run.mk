# Tests of the run concern.
