"""Tests of the depthwise family: the depthwise-convolution kernels (the operator class is
conv/conv.py's)."""
