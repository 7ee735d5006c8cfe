# Tests of the profile concern.
