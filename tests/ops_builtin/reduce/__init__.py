"""Tests of the reduce family: the REDUCE_* / SUM / MEAN reductions."""
