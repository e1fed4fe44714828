"""The transpose conv family: the transposed-convolution kernels (the operator class is
conv/conv.py's)."""
