# Sources of the run concern (added to src/libsbx.a).
