"""Tests of the conv family: CONV_2D, TRANSPOSE_CONV and DEPTHWISE_CONV_2D's operator classes, row
streaming and patches, the convolution and transposed-convolution kernels."""
