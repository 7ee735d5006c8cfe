# Tests of the cli concern.
