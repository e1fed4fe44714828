"""AIR records, names and the verifier."""

from __future__ import annotations

import numpy as np
import pytest
from helia_aot.air import (
    AirModel,
    AirOperator,
    AirQuantization,
    AirTensor,
    AirTensorKind,
    AirTensorType,
    c_comment,
    c_identifier,
    verify_model,
)
from hypothesis import given, settings
from hypothesis import strategies as st


def chain_model() -> AirModel:
    m = AirModel(name="chain")
    m.add_tensor(AirTensor("0", "x", (1, 4), AirTensorType.INT8))
    m.add_tensor(
        AirTensor(
            "1", "w", (4,), AirTensorType.INT8, AirTensorKind.CONSTANT, data=np.arange(4, dtype=np.int8)
        )
    )
    m.add_tensor(AirTensor("2", "y", (1, 4), AirTensorType.INT8))
    m.add_tensor(AirTensor("3", "z", (1, 4), AirTensorType.INT8))
    m.operators = [AirOperator("0", "ADD", ["0", "1"], ["2"]), AirOperator("1", "RELU", ["2"], ["3"])]
    m.inputs, m.outputs = ["0"], ["3"]
    return m


def test_valid_model_has_no_problems():
    assert verify_model(chain_model()) == []


def test_verifier_finds_order_missing_and_double_writes():
    m = chain_model()
    m.operators.reverse()
    assert any("before it is written" in p for p in verify_model(m))
    m = chain_model()
    m.operators[1].input_ids = ["9"]
    assert any("missing tensor" in p for p in verify_model(m))
    m = chain_model()
    m.operators[1].output_ids = ["2"]
    assert any("written by operators" in p for p in verify_model(m))
    m = chain_model()
    m.tensors["1"].data = np.zeros(3, np.int8)
    assert any("constant tensor" in p for p in verify_model(m))


def test_tensor_sizes_and_quantization():
    t = AirTensor("5", "t", (2, 3), AirTensorType.INT16, quantization=AirQuantization([0.5], [0]))
    assert t.size == 6 and t.nbytes == 12 and t.ctype == "int16_t"
    assert t.scale() == 0.5 and t.zero_point() == 0
    per_channel = AirQuantization([0.1, 0.2], [0], axis=3)
    assert per_channel.per_channel and list(per_channel.zero_point) == [0, 0]
    assert per_channel == AirQuantization(np.array([0.1, 0.2]), [0, 0], axis=3)
    with pytest.raises(ValueError):
        AirQuantization([0.1, 0.2], [0, 1, 2])


def test_source_indices_default_to_the_model_file_index():
    assert AirOperator("7", "ADD", [], []).source_indices == (7,)
    assert AirOperator("x1", "ADD", [], []).source_indices == ()


@given(st.text(max_size=80))
def test_c_identifier_is_always_a_safe_identifier(text):
    name = c_identifier(text)
    assert name and (name[0].isalpha() or name[0] == "_")
    assert all(ch.isascii() and (ch.isalnum() or ch == "_") for ch in name)


@given(st.text(max_size=200))
def test_c_comment_cannot_escape_a_comment(text):
    safe = c_comment(text)
    assert "*/" not in safe and "/*" not in safe and "//" not in safe
    assert "??" not in safe and "\\" not in safe and "\n" not in safe
    assert all(32 <= ord(ch) < 127 for ch in safe)


def test_c_identifier_avoids_keywords_and_digits():
    assert c_identifier("int") == "t_int"
    assert c_identifier("3d conv") == "t_3d_conv"
    assert c_identifier("*/ #include <x>") == "include_x"


def _identifier_by_the_rules(text: str, max_length: int = 48, fallback: str = "t") -> str:
    """c_identifier's documented rules spelled out step by step (it skips them for plain names)."""
    import re

    name = re.sub(r"[^A-Za-z0-9_]+", "_", text.encode("ascii", "ignore").decode("ascii")).strip("_").lower()
    name = re.sub(r"_+", "_", name)[:max_length].rstrip("_") or fallback
    if name[0].isdigit() or name in ("int", "for", "main", "bool", "null", "true"):
        name = f"{fallback}_{name}"
    return name


@settings(max_examples=25, deadline=None)
@given(st.text(alphabet="ab_z09Z -", max_size=60), st.integers(1, 60))
def test_c_identifier_shortcut_for_plain_names_changes_nothing(text, max_length):
    assert c_identifier(text, max_length=max_length) == _identifier_by_the_rules(text, max_length)
    for plain in ("conv_2d_415_output_multiplier", "for", "int", "a" * 60, "x_1"):
        assert c_identifier(plain, max_length=max_length) == _identifier_by_the_rules(plain, max_length)


def test_from_numpy_maps_every_spelling_of_a_dtype():
    for member in AirTensorType:
        if member is AirTensorType.INT4:  # held as int8 values: numpy int8 means INT8
            assert AirTensorType.from_numpy(member.numpy) is AirTensorType.INT8
            continue
        dtype = np.dtype(member.value)
        assert AirTensorType.from_numpy(dtype) is member
        assert AirTensorType.from_numpy(dtype.type) is member
        assert AirTensorType.from_numpy(dtype.newbyteorder(">")) is member
    with pytest.raises(ValueError):
        AirTensorType.from_numpy(np.complex64)
