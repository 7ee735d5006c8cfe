# Tests of the mount concern.
