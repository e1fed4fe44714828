"""The quantize family: QUANTIZE and DEQUANTIZE."""
