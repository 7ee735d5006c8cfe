# Tests of the probe concern.
