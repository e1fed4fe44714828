"""The model file's own bytes, kept beside the unpacked model for data stored after the flatbuffer.

LiteRT models over 2 GB keep buffer contents and large custom options past the end of the
flatbuffer, addressed by offset and size. The reader attaches the file's bytes to the ModelT it
returns, and both the tensor reader and the schema accessors slice them here: this module sits below
both, so neither has to import the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from helia_aot.errors import ModelLoadError

if TYPE_CHECKING:  # annotations only: a conversion does not import the 1 MB flatc bindings
    from helia_aot.litert import schema_py_generated as litert

FILE_BYTES_ATTR = "_helia_aot_file_bytes"
"""Attribute of a ModelT from ``read_model`` holding the file's bytes (for data stored after the
flatbuffer in models over 2 GB). A hook that builds a new ModelT keeps inline data only."""

_MALFORMED_HINT = "the file is not a well-formed LiteRT model; re-export it with the LiteRT converter"


def attach_file_bytes(model: litert.ModelT, data: bytes) -> None:
    """Keep ``data`` (the file the model was unpacked from) on the model for :func:`file_slice`."""
    setattr(model, FILE_BYTES_ATTR, data)


def file_slice(model: litert.ModelT, offset: int, size: int, what: str) -> np.ndarray:
    """``size`` bytes at ``offset`` of the model's file (data kept after the flatbuffer)."""
    data = getattr(model, FILE_BYTES_ATTR, None)
    if data is None:
        raise ModelLoadError(
            f"{what} is stored after the flatbuffer, but the model's file bytes are not available",
            hint="read the model with read_model",
        )
    if offset < 0 or size < 0 or offset + size > len(data):
        raise ModelLoadError(
            f"{what} lies at bytes {offset}..{offset + size} but the file has {len(data)} bytes",
            hint=_MALFORMED_HINT,
        )
    return np.frombuffer(data, dtype=np.uint8, count=size, offset=offset)


__all__ = ["FILE_BYTES_ATTR", "attach_file_bytes", "file_slice"]
