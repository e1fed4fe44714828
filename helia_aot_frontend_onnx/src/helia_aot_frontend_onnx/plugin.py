"""The ``onnx`` plugin: registers the ONNX model loader through ``helia_aot_model_loaders``.

Only the loader record is built here; recognising a file needs no ``onnx`` import
(:func:`is_onnx` reads the protobuf's first field), so a LiteRT conversion with this front end
installed imports nothing of it but this module.
"""

from __future__ import annotations

from collections.abc import Iterable

from helia_aot.converters.loaders import ModelLoader
from helia_aot.plugins import hookimpl

_MODEL_FIELDS = frozenset({2, 3, 4, 5, 6, 7, 8, 14, 20, 25})
"""ModelProto's length-delimited fields (producer, domain, graph, opset_import, ...): one of them
follows the ir_version varint at the start of every file ``onnx`` writes."""


def is_onnx(head: bytes) -> bool:
    """Whether a file starting with ``head`` is an ONNX ModelProto: field 1 (ir_version, a small
    varint) first, then a length-delimited field of ModelProto."""
    if len(head) < 3 or head[0] != 0x08 or not 1 <= head[1] <= 0x7F:
        return False
    tag = head[2]
    return tag & 0x07 == 2 and tag >> 3 in _MODEL_FIELDS


ONNX_LOADER = ModelLoader(
    format="onnx",
    claims=is_onnx,
    reader="helia_aot_frontend_onnx.reader:OnnxReader",
    description="ONNX protobuf, .onnx",
    suffixes=(".onnx",),
)


@hookimpl
def helia_aot_model_loaders() -> Iterable[ModelLoader]:
    """The ONNX loader."""
    return [ONNX_LOADER]


__all__ = ["ONNX_LOADER", "helia_aot_model_loaders", "is_onnx"]
