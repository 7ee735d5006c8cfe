# Tests of the seccomp concern.
