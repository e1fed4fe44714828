"""LiteRT (``.tflite``) file format support: FlatBuffers bindings, schema facts, a model builder.

``schema_py_generated`` holds the ``flatc`` object-API bindings of the official LiteRT schema
(``schema.fbs`` beside it, Apache-2.0, taken from the TensorFlow converter sources; the module
header names the commit and the command). Regenerate both with ``scripts/generate_litert_schema.py``
rather than editing them. Model builders and packs import it as::

    from helia_aot.litert import schema_py_generated as litert

``schema_tables`` (generated from ``schema.fbs`` by ``scripts/generate_litert_tables.py``) holds
the enums and table layouts as plain data, and ``objects`` the classes a read model is made of
(named and filled as the bindings' classes): a conversion reads models with those two and never
imports the 1 MB bindings. Parsers read models through
:mod:`helia_aot.converters.litert.schema_access`, which never indexes an absent vector.
:mod:`helia_aot.litert.builder` writes small models for tests and plugin authors.
"""

BINDINGS_MODULE = "helia_aot.litert.schema_py_generated"
"""The flatc bindings' module name, for code that recognizes their classes without importing them."""

FILE_IDENTIFIER = b"TFL3"
"""The four bytes at offset 4 of every LiteRT model file."""

SCHEMA_VERSION = 3
"""The ``Model.version`` the LiteRT runtime accepts."""

__all__ = ["BINDINGS_MODULE", "FILE_IDENTIFIER", "SCHEMA_VERSION"]
