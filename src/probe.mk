# Sources of the probe concern (added to src/libsbx.a).
