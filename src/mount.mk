# Sources of the mount concern (added to src/libsbx.a).
