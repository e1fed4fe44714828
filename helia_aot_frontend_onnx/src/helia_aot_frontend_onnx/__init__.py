"""helia-aot's ONNX front end: the ``onnx`` model loader (see :mod:`helia_aot_frontend_onnx.plugin`).

Importing the package imports neither ``onnx`` nor the reader: the plugin registers a loader
record, and the reader (:mod:`helia_aot_frontend_onnx.reader`) is imported when an ONNX file is
loaded.
"""
