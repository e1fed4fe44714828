"""The struct-level unpacker builds exactly the ModelT the generated object API builds.

Every corpus model is unpacked both ways and compared object by object (numpy fields by dtype,
shape and bytes; scalars by type and value); a malformed file must never unpack here where the
generated code refuses it, since the reader trusts this path and hands only its failures to the
generated one (which names the broken field). The unpacker's objects are
:mod:`helia_aot.litert.objects` classes, so a table is matched by class name and module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helia_aot.converters.litert.reader import parse_model
from helia_aot.converters.litert.unpack import unpack_model
from helia_aot.errors import ModelLoadError
from helia_aot.litert import objects
from helia_aot.litert import schema_py_generated as litert
from helia_aot.testing.conv_chain import conv_chain_model
from hypothesis import given, settings
from hypothesis import strategies as st

MODELS = sorted((Path(__file__).resolve().parents[1] / "data" / "models").glob("*.tflite"))
SMALL = [p for p in MODELS if p.stat().st_size <= 20_000][:12]


def _same(a: Any, b: Any, where: str = "model") -> None:
    """Assert two unpacked object trees are equal, field by field, types included (``a`` the
    unpacker's, ``b`` the generated code's: a table's class is the objects module's of that name)."""
    if type(b).__module__ == litert.__name__:
        assert type(a) is objects.object_class(type(b).__name__.removesuffix("T")), f"{where}: {type(a)}"
    else:
        assert type(a) is type(b), f"{where}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert a.tobytes() == b.tobytes(), where
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    elif hasattr(a, "__dict__"):
        assert list(vars(a)) == list(vars(b)), where  # same fields, same order
        for key in vars(a):
            _same(getattr(a, key), getattr(b, key), f"{where}.{key}")
    else:
        assert a == b, f"{where}: {a!r} vs {b!r}"


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_corpus_models_unpack_as_the_generated_code_does(path):
    data = path.read_bytes()
    _same(unpack_model(data), litert.ModelT.InitFromPackedBuf(data, 0))


def test_chain_and_rare_fields_unpack_as_the_generated_code_does(tmp_path):
    """The conversion-time chain, and a model given the fields handed to the generated code."""
    data = conv_chain_model(3, tmp_path / "chain.tflite").read_bytes()
    _same(unpack_model(data), litert.ModelT.InitFromPackedBuf(data, 0))
    model = litert.ModelT.InitFromPackedBuf(data, 0)
    tensor = model.subgraphs[0].tensors[0]
    tensor.shapeSignature = np.array([-1, 16, 16, 8], np.int32)
    tensor.hasRank = True
    tensor.variantTensors = [litert.VariantSubTypeT()]
    model.subgraphs[0].operators[0].intermediates = np.array([0], np.int32)
    model.subgraphs[0].name = "main"
    model.metadata = [litert.MetadataT()]
    model.metadata[0].name = "meta"
    model.buffers[1].offset, model.buffers[1].size = 1, 2
    from helia_aot.litert.builder import pack_model

    packed = pack_model(model)
    _same(unpack_model(packed), litert.ModelT.InitFromPackedBuf(packed, 0))


def _generated(data: bytes) -> Any:
    try:
        return litert.ModelT.InitFromPackedBuf(data, 0)
    except Exception:
        return None


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    st.sampled_from(SMALL),
    st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), min_size=1, max_size=4),
    st.integers(0, 1 << 20),
)
def test_malformed_bytes_unpack_only_when_the_generated_code_agrees(path, edits, cut):
    data = bytearray(path.read_bytes())
    for at, value in edits:
        data[at % len(data)] = value
    data = bytes(data[: max(8, len(data) - cut % 64)])
    expected = _generated(data)
    try:
        ours = unpack_model(data)
    except Exception:
        ours = None
    if ours is not None:
        assert expected is not None, "unpacked bytes the generated code refuses"
        _same(ours, expected)
    # The reader's answer is the generated code's either way: its model or its located error.
    if expected is None:
        with pytest.raises(ModelLoadError):
            parse_model(data)
