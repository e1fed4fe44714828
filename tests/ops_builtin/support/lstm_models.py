"""UNIDIRECTIONAL_SEQUENCE_LSTM models written with the core's LiteRT builder, for the LSTM tests.

``lstm_model`` builds one layer with any mix of the variants LiteRT's kernel accepts (CIFG,
peephole, projection with or without bias, layer normalization, cell and projection clipping,
time-major input, several batch rows) in float32 (or float16: the same graph with float16
tensors, whose float32 twin is the reference) or as the 8x8_16 integer LSTM, with weights drawn
from a generator seeded by the test, so each model is the same whichever tests ran before it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from helia_aot import AotConverter, ConvertArgs
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder


@dataclass(frozen=True)
class LstmSpec:
    """One LSTM layer: sizes, variant switches and dtype."""

    dtype: str = "float32"
    batch: int = 1
    time: int = 4
    n_input: int = 5
    n_cell: int = 6
    n_output: int | None = None  # None: no projection (n_output = n_cell)
    cifg: bool = False
    peephole: bool = False
    projection_bias: bool = False
    layer_norm: bool = False
    cell_clip: float = 0.0
    proj_clip: float = 0.0
    time_major: bool = False
    activation: str = "TANH"
    cell_scale_log2: int = -11
    hidden_zero_point: int = 0
    input_zero_point: int = 3
    output_zero_point: int = 0  # also the output state's, which starts at it
    asymmetric: bool = False  # hybrid: asymmetric_quantize_inputs
    seed: int = 0

    @property
    def outputs(self) -> int:
        return self.n_cell if self.n_output is None else self.n_output

    @property
    def label(self) -> str:
        flags = [
            name
            for name in ("cifg", "peephole", "layer_norm", "time_major", "projection_bias")
            if getattr(self, name)
        ]
        if self.n_output is not None:
            flags.append(f"proj{self.n_output}")
        if self.cell_clip:
            flags.append("cellclip")
        if self.proj_clip:
            flags.append("projclip")
        if self.asymmetric:
            flags.append("asymmetric")
        return f"{self.dtype}_b{self.batch}_t{self.time}_" + ("_".join(flags) or "plain")


def lstm_model(spec: LstmSpec, path: Path) -> Path:
    """Write the model of ``spec`` to ``path``: one input, one LSTM, one output."""
    rng = np.random.default_rng([spec.seed, zlib.crc32(spec.label.encode())])
    b = LiteRTModelBuilder()
    integer = spec.dtype == "int8"
    hybrid = spec.dtype == "hybrid"  # float32 activations, int8 weights (LiteRT's hybrid LSTM)
    float_type = "float32" if hybrid else spec.dtype
    n_in, n_cell, n_out = spec.n_input, spec.n_cell, spec.outputs
    io_shape = (spec.time, spec.batch) if spec.time_major else (spec.batch, spec.time)
    act_q = (0.05, spec.input_zero_point) if integer else None
    out_q = (0.012, spec.output_zero_point) if integer else None

    def weights(name: str, shape: tuple[int, ...], in_scale: float) -> int:
        if hybrid:
            scale = float(rng.uniform(0.5, 1.5)) * 0.9 / np.sqrt(shape[-1]) / 127
            data = rng.integers(-127, 128, shape)
            return b.add_tensor(name, shape, "int8", data=data, quantization=(scale, 0))
        if not integer:
            data = rng.standard_normal(shape).astype(np.float32) * (0.9 / np.sqrt(shape[-1]))
            return b.add_tensor(name, shape, spec.dtype, data=data.astype(spec.dtype))
        scale = float(rng.uniform(0.004, 0.02)) * (0.6 / in_scale) * (1 / np.sqrt(shape[-1])) * 2**-6
        data = rng.integers(-127, 128, shape)
        return b.add_tensor(name, shape, "int8", data=data, quantization=(scale, 0))

    def vector(name: str, kind: str) -> int:
        size = n_out if kind == "proj_bias" else n_cell
        if hybrid and kind == "peephole":
            data = rng.integers(-127, 128, size)
            return b.add_tensor(name, (size,), "int8", data=data, quantization=(0.4 / 127, 0))
        if not integer:
            data = rng.standard_normal(size).astype(np.float32) * 0.4
            if kind == "layer_norm":
                data = 1.0 + data * 0.5
            return b.add_tensor(name, (size,), float_type, data=data.astype(float_type))
        if kind == "bias":
            big = 1 << 23 if spec.layer_norm else 400
            return b.add_tensor(name, (size,), "int32", data=rng.integers(-big, big, size))
        if kind == "proj_bias":
            return b.add_tensor(name, (size,), "int32", data=rng.integers(-3000, 3000, size))
        if kind == "layer_norm":
            data = rng.integers(8000, 24000, size)
            return b.add_tensor(name, (size,), "int16", data=data, quantization=(1 / 16384, 0))
        data = rng.integers(-20000, 20000, size)  # peephole
        return b.add_tensor(name, (size,), "int16", data=data, quantization=(2.0**-12, 0))

    x = b.add_tensor("x", (*io_shape, n_in), float_type, quantization=act_q)
    state_q = out_q
    inputs = [x]
    for g in ("input", "forget", "cell", "output"):
        inputs.append(-1 if spec.cifg and g == "input" else weights(f"w_x_{g}", (n_cell, n_in), 0.05))
    for g in ("input", "forget", "cell", "output"):
        inputs.append(-1 if spec.cifg and g == "input" else weights(f"w_h_{g}", (n_cell, n_out), 0.012))
    for g in ("input", "forget", "output"):
        inputs.append(
            vector(f"w_c_{g}", "peephole") if spec.peephole and not (spec.cifg and g == "input") else -1
        )
    for g in ("input", "forget", "cell", "output"):
        inputs.append(-1 if spec.cifg and g == "input" else vector(f"bias_{g}", "bias"))
    if spec.n_output is not None:
        inputs.append(weights("w_proj", (n_out, n_cell), 1.0 / 128))
        inputs.append(vector("proj_bias", "proj_bias") if spec.projection_bias else -1)
    else:
        inputs += [-1, -1]
    inputs.append(b.add_tensor("h", (spec.batch, n_out), float_type, quantization=state_q, variable=True))
    cell_q = (2.0**spec.cell_scale_log2, 0) if integer else None
    inputs.append(
        b.add_tensor(
            "c", (spec.batch, n_cell), "int16" if integer else float_type, quantization=cell_q, variable=True
        )
    )
    for g in ("input", "forget", "cell", "output"):
        present = spec.layer_norm and not (spec.cifg and g == "input")
        inputs.append(vector(f"ln_{g}", "layer_norm") if present else -1)
    # Without a projection the hidden state is the output state, as converters quantize it.
    HIDDEN_Q = out_q if spec.n_output is None else (1 / 128, spec.hidden_zero_point)
    intermediates = []
    if integer:
        for i in range(4):
            intermediates.append(b.add_tensor(f"inter{i}", (0,), "int16", quantization=(0.0007 * (i + 2), 0)))
        intermediates.append(b.add_tensor("inter_hidden", (0,), "int8", quantization=HIDDEN_Q))
    y = b.add_tensor("y", (*io_shape, n_out), float_type, quantization=out_q)
    options = litert.UnidirectionalSequenceLSTMOptionsT()
    options.fusedActivationFunction = getattr(litert.ActivationFunctionType, spec.activation)
    options.cellClip = spec.cell_clip
    options.projClip = spec.proj_clip
    options.timeMajor = spec.time_major
    options.asymmetricQuantizeInputs = spec.asymmetric
    b.add_operator("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [y], options, intermediates=intermediates)
    b.set_inputs([x])
    b.set_outputs([y])
    return b.save(path)


@dataclass(frozen=True)
class BidiSpec:
    """One float32 BIDIRECTIONAL_SEQUENCE_LSTM: sizes and the modes LiteRT's kernel has."""

    batch: int = 2
    time: int = 4
    n_input: int = 3
    n_cell: int = 5
    projection: int | None = None  # both directions project to this many outputs (LiteRT
    # requires the two directions to have the same cell and output sizes)
    fw_cifg: bool = False
    fw_peephole: bool = False
    merge_outputs: bool = False
    time_major: bool = True
    aux: str = "none"  # "none", "backward_input" (no aux weights) or "cross_links"
    seed: int = 0

    @property
    def label(self) -> str:
        parts = [f"b{self.batch}_t{self.time}", self.aux]
        for name in ("fw_cifg", "fw_peephole", "merge_outputs", "time_major"):
            if getattr(self, name):
                parts.append(name)
        if self.projection is not None:
            parts.append(f"proj{self.projection}")
        return "_".join(parts)


def bidirectional_model(spec: BidiSpec, path: Path) -> Path:
    """Write the model of ``spec``: input (and aux input), one bidirectional LSTM, its outputs."""
    rng = np.random.default_rng([spec.seed, zlib.crc32(spec.label.encode())])
    b = LiteRTModelBuilder()
    steps = (spec.time, spec.batch) if spec.time_major else (spec.batch, spec.time)
    n_aux = spec.n_input if spec.aux == "backward_input" else 2

    def tensor(name: str, shape: tuple[int, ...]) -> int:
        data = rng.standard_normal(shape).astype(np.float32) * (0.8 / np.sqrt(shape[-1]))
        return b.add_tensor(name, shape, "float32", data=data)

    x = b.add_tensor("x", (*steps, spec.n_input), "float32")
    aux = b.add_tensor("aux", (*steps, n_aux), "float32") if spec.aux != "none" else -1
    bw_in = n_aux if spec.aux == "backward_input" else spec.n_input
    inputs = [x]
    directions = []
    for prefix, n_cell, n_out, cifg, peep, n_in in (
        ("fw", spec.n_cell, spec.projection or spec.n_cell, spec.fw_cifg, spec.fw_peephole, spec.n_input),
        ("bw", spec.n_cell, spec.projection or spec.n_cell, False, False, bw_in),
    ):
        part = [-1 if cifg and g == "i" else tensor(f"{prefix}_wx_{g}", (n_cell, n_in)) for g in "ifco"]
        part += [-1 if cifg and g == "i" else tensor(f"{prefix}_wh_{g}", (n_cell, n_out)) for g in "ifco"]
        part += [
            tensor(f"{prefix}_wc_{g}", (n_cell,)) if peep and not (cifg and g == "i") else -1 for g in "ifo"
        ]
        part += [-1 if cifg and g == "i" else tensor(f"{prefix}_b_{g}", (n_cell,)) for g in "ifco"]
        if n_out != n_cell:
            part += [tensor(f"{prefix}_proj", (n_out, n_cell)), tensor(f"{prefix}_proj_b", (n_out,))]
        else:
            part += [-1, -1]
        directions.append((part, n_cell, n_out, cifg))
    inputs += directions[0][0] + directions[1][0]
    for prefix, (_, n_cell, n_out, _) in zip(("fw", "bw"), directions):
        inputs.append(b.add_tensor(f"{prefix}_h", (spec.batch, n_out), "float32", variable=True))
        inputs.append(b.add_tensor(f"{prefix}_c", (spec.batch, n_cell), "float32", variable=True))
    inputs.append(aux)
    for _, n_cell, _, cifg in directions:
        if spec.aux == "cross_links":
            inputs += [
                -1 if cifg and g == "i" else tensor(f"aux_w_{g}{n_cell}", (n_cell, n_aux)) for g in "ifco"
            ]
        else:
            inputs += [-1, -1, -1, -1]
    fw_out, bw_out = directions[0][2], directions[1][2]
    if spec.merge_outputs:
        outputs = [b.add_tensor("y", (*steps, fw_out + bw_out), "float32")]
    else:
        outputs = [
            b.add_tensor("y_fw", (*steps, fw_out), "float32"),
            b.add_tensor("y_bw", (*steps, bw_out), "float32"),
        ]
    options = litert.BidirectionalSequenceLSTMOptionsT()
    options.fusedActivationFunction = litert.ActivationFunctionType.TANH
    options.cellClip = 2.0
    options.mergeOutputs = spec.merge_outputs
    options.timeMajor = spec.time_major
    b.add_operator("BIDIRECTIONAL_SEQUENCE_LSTM", inputs, outputs, options)
    b.set_inputs([x] if aux < 0 else [x, aux])
    b.set_outputs(outputs)
    return b.save(path)


def convert_lstm(path: Path, out: Path, spec: LstmSpec, samples: int = 4):
    """Convert an LSTM model with its self test over ``samples`` consecutive runs (float32 within
    1e-5, integers exact)."""
    config = {
        "model": {"path": str(path)},
        "module": {"path": str(out / "out"), "name": "module"},
        "test": {"enabled": True, "samples": samples, "tolerance": 1e-5 if spec.dtype == "float32" else 0.0},
    }
    return AotConverter(ConvertArgs.model_validate(config)).convert()
