"""onnxruntime's requantization for the integer operators of a model from the ONNX front end.

A front end that records ``requantization: "onnx"`` in the AIR model's metadata gets its
convolutions, matrix products, ADD, MUL, average poolings and means computed as onnxruntime's
integer kernels compute them (float32 multiplier, round half to even) instead of LiteRT's
fixed-point arithmetic; see ``onnx_operators`` and ``hk_onnx_requant.h``.
"""
