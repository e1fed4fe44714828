"""Tests of the common family: what several families share: the operator base class, the kernel-call
base, parsing and quantization helpers, and the C headers every kernel includes."""
