"""The data movement family: reshapes, copies, slices, pads, concatenation, transposes, RESIZE_*, the
data movers."""
