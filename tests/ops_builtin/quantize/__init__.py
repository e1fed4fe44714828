"""Tests of the quantize family: QUANTIZE and DEQUANTIZE."""
