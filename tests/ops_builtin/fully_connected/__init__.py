"""Tests of the fully connected family: FULLY_CONNECTED and BATCH_MATMUL."""
