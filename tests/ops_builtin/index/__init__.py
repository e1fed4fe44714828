"""Tests of the index family: GATHER, GATHER_ND, SCATTER_ND, ONE_HOT, ARG_MIN/MAX, CUMSUM and the
dynamic slices."""
