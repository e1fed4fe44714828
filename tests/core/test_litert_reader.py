"""The LiteRT reader: typed errors for bad files, dtypes, quantization and constant data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.air import AirQuantization, AirTensorType
from helia_aot.converters.litert import schema_access as sa
from helia_aot.converters.litert.reader import (
    buffer_data,
    parse_model,
    quantization_of,
    read_model,
    tensor_dtype,
)
from helia_aot.errors import ModelLoadError, UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder, pack_model

MODELS_DIR = Path(__file__).resolve().parents[1] / "data" / "models"
CONV_INT8 = MODELS_DIR / "conv2d_3x3_s2_same_int8.tflite"


# -- file-level errors ---------------------------------------------------------------------------


def test_missing_file(tmp_path):
    with pytest.raises(ModelLoadError, match="not found") as info:
        read_model(tmp_path / "absent.tflite")
    assert info.value.exit_code == 2 and isinstance(info.value, OSError)


def test_directory_is_not_a_model(tmp_path):
    with pytest.raises(ModelLoadError, match="not a regular file"):
        read_model(tmp_path)


def test_unreadable_file(tmp_path, monkeypatch):
    path = tmp_path / "locked.tflite"
    path.write_bytes(CONV_INT8.read_bytes())

    def refuse(self):  # stands in for a permission error, which root would not get
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(ModelLoadError, match="cannot read .*Permission denied"):
        read_model(path)


def test_size_is_checked_before_reading(tmp_path):
    path = tmp_path / "big.tflite"
    path.write_bytes(CONV_INT8.read_bytes())
    with pytest.raises(ModelLoadError, match="limit"):
        read_model(path, max_bytes=100)


@pytest.mark.parametrize("content", [b"", b"TFL3", bytes(range(256)) * 4])
def test_short_or_random_bytes(tmp_path, content):
    path = tmp_path / "junk.tflite"
    path.write_bytes(content)
    with pytest.raises(ModelLoadError):
        read_model(path)


def test_random_bytes_with_the_right_identifier():
    rng = np.random.default_rng(7)
    for _ in range(50):
        junk = bytearray(rng.integers(0, 256, size=int(rng.integers(8, 400)), dtype=np.uint8))
        junk[4:8] = b"TFL3"
        with pytest.raises(ModelLoadError):
            parse_model(bytes(junk))


def test_wrong_identifier():
    data = bytearray(CONV_INT8.read_bytes())
    data[4:8] = b"TFL2"
    with pytest.raises(ModelLoadError, match=r"file identifier b'TFL2', expected b'TFL3'"):
        parse_model(bytes(data))


def test_every_truncation_is_a_model_load_error():
    data = CONV_INT8.read_bytes()
    for cut in range(0, len(data), 5):
        with pytest.raises(ModelLoadError):
            parse_model(data[:cut])


def test_corrupted_bytes_never_escape_as_other_errors():
    data = CONV_INT8.read_bytes()
    rng = np.random.default_rng(1)
    parsed = 0
    for _ in range(400):
        corrupt = bytearray(data)
        for _ in range(int(rng.integers(1, 6))):
            corrupt[int(rng.integers(8, len(corrupt)))] = int(rng.integers(0, 256))
        try:
            parse_model(bytes(corrupt))
            parsed += 1
        except ModelLoadError:
            pass
    assert parsed > 0  # most single-byte changes land in data and still parse


def test_wrong_schema_version():
    b = _single_tensor_builder()
    model = b.build()
    model.version = 2
    with pytest.raises(ModelLoadError, match="schema version 2"):
        parse_model(pack_model(model))


# -- tensor facts --------------------------------------------------------------------------------


def _single_tensor_builder() -> LiteRTModelBuilder:
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", (2,), "float32")
    y = b.add_tensor("y", (2,), "float32")
    b.add_operator("RELU", [x], [y])
    b.set_inputs([x])
    b.set_outputs([y])
    return b


@pytest.mark.parametrize(
    "code, expected",
    [
        (litert.TensorType.FLOAT32, AirTensorType.FLOAT32),
        (litert.TensorType.INT8, AirTensorType.INT8),
        (litert.TensorType.INT16, AirTensorType.INT16),
        (litert.TensorType.INT32, AirTensorType.INT32),
        (litert.TensorType.UINT8, AirTensorType.UINT8),
        (litert.TensorType.INT64, AirTensorType.INT64),
        (litert.TensorType.BOOL, AirTensorType.BOOL),
        (litert.TensorType.FLOAT16, AirTensorType.FLOAT16),
    ],
)
def test_tensor_dtype(code, expected):
    assert tensor_dtype(code) is expected


@pytest.mark.parametrize(
    "code",
    [
        litert.TensorType.STRING,
        litert.TensorType.RESOURCE,
        litert.TensorType.UINT16,
        litert.TensorType.COMPLEX64,
        250,
    ],
)
def test_unsupported_tensor_dtype(code):
    with pytest.raises(UnsupportedModelError, match="not supported"):
        tensor_dtype(code)


def test_constants_and_quantization_match_the_interpreter():
    model = read_model(CONV_INT8)
    subgraph = sa.subgraph_at(model, 0)
    interpreter = Interpreter(
        model_path=str(CONV_INT8), experimental_op_resolver_type=OpResolverType.BUILTIN_REF
    )
    interpreter.allocate_tensors()
    constants = 0
    for d in interpreter.get_tensor_details():
        tensor = sa.tensor_at(subgraph, d["index"])
        data = buffer_data(model, tensor)
        q = quantization_of(tensor)
        params = d["quantization_parameters"]
        assert np.array_equal(q.scale, params["scales"].astype(np.float32))
        assert np.array_equal(q.zero_point, params["zero_points"])
        assert q.axis == params["quantized_dimension"]
        if data is not None:
            constants += 1
            expected = interpreter.get_tensor(d["index"])
            assert data.dtype == expected.dtype and np.array_equal(data, expected)
            assert data.flags.writeable  # a fresh copy, not a view of the file
    assert constants == 2  # weights and bias


def test_float16_constants():
    path = MODELS_DIR / "conv2d_fp16_weights_float16w.tflite"
    model = read_model(path)
    subgraph = sa.subgraph_at(model, 0)
    halfs = [t for t in sa.tensors_of(subgraph) if t.type == litert.TensorType.FLOAT16]
    assert halfs
    for tensor in halfs:
        data = buffer_data(model, tensor)
        assert data.dtype == np.float16 and data.shape == sa.shape_of(tensor)
        assert np.isfinite(data).all()


def _model_with_constant(raw: bytes, shape=(2, 2), dtype="int8"):
    b = LiteRTModelBuilder()
    x = b.add_tensor("x", shape, dtype)
    w = b.add_tensor("weights", shape, dtype, data=raw)
    y = b.add_tensor("y", shape, dtype)
    b.add_operator("ADD", [x, w], [y], litert.AddOptionsT())
    b.set_inputs([x])
    b.set_outputs([y])
    model = parse_model(b.to_bytes())
    return model, sa.tensor_at(sa.subgraph_at(model, 0), w)


def test_buffer_shorter_than_tensor_names_the_tensor():
    model, tensor = _model_with_constant(b"\x01\x02\x03")
    with pytest.raises(ModelLoadError, match=r"'weights' holds 3 bytes, shorter than the 4 bytes"):
        buffer_data(model, tensor)


def test_bytes_past_the_tensor_are_ignored_like_the_runtime_does():
    model, tensor = _model_with_constant(b"\x01\x02\x03\x04\x05")
    assert buffer_data(model, tensor).tolist() == [[1, 2], [3, 4]]


def test_bool_and_little_endian_values():
    model, tensor = _model_with_constant(b"\x00\x02\x01\x00", dtype="bool")
    assert buffer_data(model, tensor).tolist() == [[False, True], [True, False]]
    model, tensor = _model_with_constant(np.array([1, -2], "<i2").tobytes(), (2,), "int16")
    assert buffer_data(model, tensor).tolist() == [1, -2]


def test_buffer_stored_after_the_flatbuffer():
    model, tensor = _model_with_constant(b"\x01\x02\x03\x04")
    file_bytes = model._helia_aot_file_bytes
    buffer = sa.buffer_at(model, tensor.buffer)
    buffer.data = None
    buffer.offset = file_bytes.index(b"\x01\x02\x03\x04")
    buffer.size = 4
    assert buffer_data(model, tensor).tolist() == [[1, 2], [3, 4]]
    buffer.offset = len(file_bytes) - 2
    with pytest.raises(ModelLoadError, match="lies at bytes"):
        buffer_data(model, tensor)


def test_external_and_sparse_data_are_unsupported():
    model, tensor = _model_with_constant(b"\x01\x02\x03\x04")
    tensor.sparsity = litert.SparsityParametersT()  # Load densifies before the reader sees it
    with pytest.raises(UnsupportedModelError, match="sparse"):
        buffer_data(model, tensor)
    tensor.sparsity = None
    tensor.externalBuffer = 3
    with pytest.raises(UnsupportedModelError, match="external"):
        buffer_data(model, tensor)


def test_activation_has_no_data():
    model, _ = _model_with_constant(b"\x01\x02\x03\x04")
    assert buffer_data(model, sa.tensor_at(sa.subgraph_at(model, 0), 0)) is None


def _quantized(scale, zero_point, axis=0, shape=(3, 2)):
    tensor = litert.TensorT()
    tensor.shape = np.asarray(shape, np.int32)
    q = litert.QuantizationParametersT()
    q.scale = None if scale is None else np.asarray(scale, np.float32)
    q.zeroPoint = None if zero_point is None else np.asarray(zero_point, np.int64)
    q.quantizedDimension = axis
    tensor.quantization = q
    return tensor


def test_quantization_forms():
    assert quantization_of(litert.TensorT()) is None
    assert quantization_of(_quantized(None, None)) is None
    assert quantization_of(_quantized([], [])) is None
    assert quantization_of(_quantized([0.5], [3])) == AirQuantization(np.float32([0.5]), [3], 0)
    per_channel = quantization_of(_quantized([0.1, 0.2, 0.3], [0, 0, 0], axis=0))
    assert per_channel.per_channel and per_channel.axis == 0


@pytest.mark.parametrize(
    "scale, zero_point, axis, message",
    [
        ([0.5], None, 0, "no zero points"),
        ([0.5, 0.25], [0], 1, "2 scales but 1 zero points"),
        ([0.5], [0], 2, "quantized dimension 2 but rank 2"),
        ([0.1, 0.2, 0.3], [0, 0, 0], 1, "3 scales for dimension 1 of size 2"),
    ],
)
def test_malformed_quantization(scale, zero_point, axis, message):
    with pytest.raises(ModelLoadError, match=message):
        quantization_of(_quantized(scale, zero_point, axis))


def test_quantization_details_are_unsupported():
    tensor = _quantized([0.5], [0])
    tensor.quantization.detailsType = litert.QuantizationDetails.CustomQuantization
    tensor.quantization.details = litert.CustomQuantizationT()
    with pytest.raises(UnsupportedModelError, match="non-affine"):
        quantization_of(tensor)
