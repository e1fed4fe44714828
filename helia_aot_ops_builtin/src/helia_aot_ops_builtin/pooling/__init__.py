"""The pooling family: AVERAGE_POOL_2D, MAX_POOL_2D, L2_POOL_2D."""
