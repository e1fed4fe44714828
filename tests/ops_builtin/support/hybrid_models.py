"""Builder-made hybrid (dynamic-range quantized) single-operator models and their goldens.

Hybrid: float32 input and output, int8 constant weights with float scales, float32 bias, as the
TFLite converter writes with ``Optimize.DEFAULT`` and no representative data. The golden outputs
come from LiteRT's reference interpreter (BUILTIN_REF) on inputs spread over a realistic range,
with an all-zero sample among them (the reference's zero-input shortcut).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.air import AirTensorType
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder

ACTIVATIONS = {"NONE": 0, "RELU": 1, "RELU_N1_TO_1": 2, "RELU6": 3, "TANH": 4}


def int8_weights(
    rng: np.random.Generator, shape: tuple[int, ...], axis: int, per_channel: bool, *, int4: bool = False
):
    """Random int8 weights (``int4``: in -8..7, stored packed as INT4) with symmetric scales
    (one, or one per unit along ``axis``)."""
    data = (rng.integers(-8, 8, shape) if int4 else rng.integers(-127, 128, shape)).astype(np.int8)
    units = shape[axis] if per_channel else 1
    scales = rng.uniform(2e-3, 2e-2, units).astype(np.float32)
    return data, (scales, np.zeros(units, np.int64), axis if per_channel else 0)


def fc_hybrid_model(
    path: Path,
    *,
    batches: int,
    depth: int,
    units: int,
    per_channel: bool = False,
    asymmetric: bool = False,
    activation: str = "NONE",
    bias: bool = True,
    int4: bool = False,
    seed: int = 0,
) -> Path:
    """One hybrid FULLY_CONNECTED: [batches, depth] float32 x [units, depth] int8 (or int4)
    weights."""
    rng = np.random.default_rng(seed)
    b = LiteRTModelBuilder()
    x = b.add_tensor("input", (batches, depth), "float32")
    data, q = int8_weights(rng, (units, depth), 0, per_channel, int4=int4)
    w = b.add_tensor(
        "weights", (units, depth), AirTensorType.INT4 if int4 else "int8", data=data, quantization=q
    )
    inputs = [x, w]
    if bias:
        inputs.append(b.add_tensor("bias", (units,), "float32", data=rng.uniform(-1, 1, units)))
    y = b.add_tensor("output", (batches, units), "float32")
    options = litert.FullyConnectedOptionsT()
    options.fusedActivationFunction = ACTIVATIONS[activation]
    options.asymmetricQuantizeInputs = asymmetric
    b.add_operator("FULLY_CONNECTED", inputs, [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def hybrid_samples(model: Path, count: int, seed: int) -> list[list[np.ndarray]]:
    """``count`` samples: the first all zero, the rest spread over a few scales, each row with
    its own offset (so the asymmetric zero points vary)."""
    rng = np.random.default_rng(seed)
    details = Interpreter(model_path=str(model)).get_input_details()
    samples = []
    for k in range(count):
        sample = []
        for detail in details:
            shape = tuple(int(d) for d in detail["shape"])
            if k == 0:
                sample.append(np.zeros(shape, np.float32))
                continue
            spread = 10.0 ** rng.uniform(-2, 1)
            shift = rng.uniform(-1, 1, shape[:1] + (1,) * (len(shape) - 1)) * spread
            sample.append((rng.standard_normal(shape) * spread + shift).astype(np.float32))
        samples.append(sample)
    return samples


def reference_golden(model: Path, samples: list[list[np.ndarray]], target: Path) -> Path:
    """The golden npz (``input_i`` / ``output_j``, samples stacked) from the reference kernels."""
    interpreter = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    outputs = []
    for sample in samples:
        for detail, value in zip(interpreter.get_input_details(), sample):
            interpreter.set_tensor(detail["index"], value)
        interpreter.invoke()
        outputs.append([interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()])
    arrays = {f"input_{i}": np.stack([s[i] for s in samples]) for i in range(len(samples[0]))}
    arrays.update({f"output_{j}": np.stack([o[j] for o in outputs]) for j in range(len(outputs[0]))})
    np.savez(target, **arrays)
    return target


def conv_hybrid_model(
    path: Path,
    *,
    depthwise: bool = False,
    batches: int = 1,
    height: int = 6,
    width: int = 5,
    channels: int = 3,
    out_channels: int = 4,
    kernel: tuple[int, int] = (3, 3),
    stride: tuple[int, int] = (1, 1),
    dilation: tuple[int, int] = (1, 1),
    padding: str = "SAME",
    per_channel: bool = True,
    activation: str = "NONE",
    bias: bool = True,
    int4: bool = False,
    seed: int = 0,
) -> Path:
    """One hybrid CONV_2D (filter [out, kh, kw, in]) or DEPTHWISE_CONV_2D (filter [1, kh, kw,
    out], out a multiple of the input channels) over a float32 NHWC input; int8 (or int4)
    filter."""
    rng = np.random.default_rng(seed)
    kh, kw = kernel
    b = LiteRTModelBuilder()
    x = b.add_tensor("input", (batches, height, width, channels), "float32")
    shape = (1, kh, kw, out_channels) if depthwise else (out_channels, kh, kw, channels)
    data, q = int8_weights(rng, shape, 3 if depthwise else 0, per_channel, int4=int4)
    w = b.add_tensor("filter", shape, AirTensorType.INT4 if int4 else "int8", data=data, quantization=q)
    inputs = [x, w]
    if bias:
        inputs.append(b.add_tensor("bias", (out_channels,), "float32", data=rng.uniform(-1, 1, out_channels)))

    def out_size(size: int, k: int, s: int, d: int) -> int:
        span = (k - 1) * d + 1
        return -(-size // s) if padding == "SAME" else (size - span) // s + 1

    oh = out_size(height, kh, stride[0], dilation[0])
    ow = out_size(width, kw, stride[1], dilation[1])
    y = b.add_tensor("output", (batches, oh, ow, out_channels), "float32")
    options = litert.DepthwiseConv2DOptionsT() if depthwise else litert.Conv2DOptionsT()
    options.padding = getattr(litert.Padding, padding)
    options.strideH, options.strideW = stride
    options.dilationHFactor, options.dilationWFactor = dilation
    options.fusedActivationFunction = ACTIVATIONS[activation]
    if depthwise:
        options.depthMultiplier = out_channels // channels
    b.add_operator("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", inputs, [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def bmm_hybrid_model(
    path: Path,
    *,
    lhs_shape: tuple[int, ...],
    rhs_shape: tuple[int, ...],
    adj_x: bool = False,
    adj_y: bool = False,
    per_channel: bool = False,
    asymmetric: bool = False,
    seed: int = 0,
) -> Path:
    """One hybrid BATCH_MATMUL: float32 lhs times a constant int8 rhs (scales per tensor or per
    column of the product)."""
    rng = np.random.default_rng(seed)
    b = LiteRTModelBuilder()
    x = b.add_tensor("lhs", lhs_shape, "float32")
    axis = len(rhs_shape) - (2 if adj_y else 1)
    data, q = int8_weights(rng, rhs_shape, axis, per_channel)
    w = b.add_tensor("rhs", rhs_shape, "int8", data=data, quantization=q)
    rows = lhs_shape[-1] if adj_x else lhs_shape[-2]
    cols = rhs_shape[-2] if adj_y else rhs_shape[-1]
    rank = max(len(lhs_shape), len(rhs_shape))
    lb = (1,) * (rank - len(lhs_shape)) + tuple(lhs_shape[:-2])
    rb = (1,) * (rank - len(rhs_shape)) + tuple(rhs_shape[:-2])
    batch = tuple(max(u, v) for u, v in zip(lb, rb))
    y = b.add_tensor("output", (*batch, rows, cols), "float32")
    options = litert.BatchMatMulOptionsT()
    options.adjX, options.adjY = adj_x, adj_y
    options.asymmetricQuantizeInputs = asymmetric
    b.add_operator("BATCH_MATMUL", [x, w], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def rnn_hybrid_model(
    path: Path,
    *,
    batch: int,
    steps: int,
    inputs: int,
    units: int,
    time_major: bool = False,
    sequence: bool = True,
    asymmetric: bool = False,
    activation: str = "TANH",
    seed: int = 0,
) -> Path:
    """One hybrid UNIDIRECTIONAL_SEQUENCE_RNN (or, ``sequence`` False, RNN) with int8 input and
    recurrent weights (one scale each) and a variable float32 hidden state [batch, units]."""
    rng = np.random.default_rng(seed)
    b = LiteRTModelBuilder()
    if sequence:
        seq_in = (steps, batch, inputs) if time_major else (batch, steps, inputs)
        seq_out = (steps, batch, units) if time_major else (batch, steps, units)
    else:
        seq_in, seq_out = (batch, inputs), (batch, units)
    x = b.add_tensor("input", seq_in, "float32")
    w_data, w_q = int8_weights(rng, (units, inputs), 0, False)
    r_data, r_q = int8_weights(rng, (units, units), 0, False)
    w = b.add_tensor("input_weights", (units, inputs), "int8", data=w_data, quantization=w_q)
    r = b.add_tensor("recurrent_weights", (units, units), "int8", data=r_data, quantization=r_q)
    bias = b.add_tensor("bias", (units,), "float32", data=rng.uniform(-0.5, 0.5, units))
    h = b.add_tensor("hidden_state", (batch, units), "float32", variable=True)
    y = b.add_tensor("output", seq_out, "float32")
    if sequence:
        options = litert.SequenceRNNOptionsT()
        options.timeMajor = time_major
    else:
        options = litert.RNNOptionsT()
    options.fusedActivationFunction = ACTIVATIONS[activation]
    options.asymmetricQuantizeInputs = asymmetric
    b.add_operator("UNIDIRECTIONAL_SEQUENCE_RNN" if sequence else "RNN", [x, w, r, bias, h], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


def svdf_hybrid_model(
    path: Path,
    *,
    batch: int,
    inputs: int,
    units: int,
    rank: int,
    memory: int,
    asymmetric: bool = False,
    activation: str = "NONE",
    bias: bool = True,
    seed: int = 0,
) -> Path:
    """One hybrid SVDF: float32 input, output, bias and state [batch, memory * filters], int8
    weights_feature [filters, inputs] and weights_time [filters, memory] with one scale each."""
    rng = np.random.default_rng(seed)
    filters = units * rank
    b = LiteRTModelBuilder()
    x = b.add_tensor("input", (batch, inputs), "float32")
    f_data, f_q = int8_weights(rng, (filters, inputs), 0, False)
    t_data, t_q = int8_weights(rng, (filters, memory), 0, False)
    wf = b.add_tensor("weights_feature", (filters, inputs), "int8", data=f_data, quantization=f_q)
    wt = b.add_tensor("weights_time", (filters, memory), "int8", data=t_data, quantization=t_q)
    bi = b.add_tensor("bias", (units,), "float32", data=rng.uniform(-1, 1, units)) if bias else -1
    state = b.add_tensor("state", (batch, memory * filters), "float32", variable=True)
    y = b.add_tensor("output", (batch, units), "float32")
    options = litert.SVDFOptionsT()
    options.rank = rank
    options.fusedActivationFunction = ACTIVATIONS[activation]
    options.asymmetricQuantizeInputs = asymmetric
    b.add_operator("SVDF", [x, wf, wt, bi, state], [y], options)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)
