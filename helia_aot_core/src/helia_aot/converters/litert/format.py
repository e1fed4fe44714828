"""The LiteRT model loader's record: how a LiteRT flatbuffer is recognised, and its reader.

A LiteRT file is a FlatBuffer whose 4-byte file identifier, after the 4-byte root offset, is
``TFL3``; the reader itself (:class:`~helia_aot.pipeline.litert_reader.LiteRTReader`) is imported
only when such a file is loaded.
"""

from __future__ import annotations

from helia_aot.converters.loaders import ModelLoader
from helia_aot.litert import FILE_IDENTIFIER


def is_litert(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a LiteRT flatbuffer (identifier at bytes 4..8)."""
    return head[4:8] == FILE_IDENTIFIER


LITERT_LOADER = ModelLoader(
    format="litert",
    claims=is_litert,
    reader="helia_aot.pipeline.litert_reader:LiteRTReader",
    description="LiteRT flatbuffer, .tflite",
    suffixes=(".tflite", ".litert"),
)
"""The core's front end, registered by the ``core`` plugin through ``helia_aot_model_loaders``."""

__all__ = ["LITERT_LOADER", "is_litert"]
