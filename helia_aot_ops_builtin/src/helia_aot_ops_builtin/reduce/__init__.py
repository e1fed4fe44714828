"""The reduce family: the REDUCE_* / SUM / MEAN reductions."""
