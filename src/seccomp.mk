# Sources of the seccomp concern (added to src/libsbx.a).
