"""GELU, ELU, RELU_0_TO_1, LOG_SOFTMAX, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION and int16
PRELU against the LiteRT interpreter, over several shapes, dtypes and parameters.

Each model is built with the core's LiteRT builder; the golden outputs come from the BUILTIN_REF
interpreter (ELU, which that resolver lacks, from the built-in kernels without delegates: its int8
path is the same table and its float path the same expm1), the module is built under ASan/UBSan
and its self test compares bit for bit on integers. Dtypes the reference interpreter refuses are
refused at conversion, and each refusal test first shows the interpreter refusing the same model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from e2e.corpus import CORE_FLOAT_ULP  # the cores' float bound, shared with the corpus cross runs
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import CORES, cross_build_module, run_module_test_case, run_qemu


def gelu(approximate: bool):
    options = litert.GeluOptionsT()
    options.approximate = approximate
    return options


def lrn(radius: int, bias: float, alpha: float, beta: float):
    options = litert.LocalResponseNormalizationOptionsT()
    options.radius, options.bias, options.alpha, options.beta = radius, bias, alpha, beta
    return options


class Model:
    """One input of ``shape`` and one branch per operator applied to it."""

    def __init__(self, shape: tuple[int, ...], dtype: str, quant=None) -> None:
        self.b = LiteRTModelBuilder()
        self.shape, self.dtype = shape, dtype
        self.x = self.b.add_tensor("x", shape, dtype, quantization=quant)
        self.outputs: list[int] = []

    def op(self, name: str, quant=None, options=None, extra=()) -> None:
        out = self.b.add_tensor(
            f"{name.lower()}_{len(self.outputs)}", self.shape, self.dtype, quantization=quant
        )
        self.b.add_operator(name, [self.x, *extra], [out], options)
        self.outputs.append(out)

    def save(self, path: Path) -> Path:
        self.b.set_inputs([self.x])
        self.b.set_outputs(self.outputs)
        return self.b.save(path)


def interpreter(model: Path, resolver: OpResolverType) -> Interpreter:
    it = Interpreter(model_path=str(model), experimental_op_resolver_type=resolver)
    it.allocate_tensors()
    return it


def golden(model: Path, samples: list[np.ndarray], target: Path, resolver=OpResolverType.BUILTIN_REF) -> Path:
    it = interpreter(model, resolver)
    (inp,), outs = it.get_input_details(), it.get_output_details()
    results: list[list[np.ndarray]] = [[] for _ in outs]
    for sample in samples:
        it.set_tensor(inp["index"], sample)
        it.invoke()
        for j, detail in enumerate(outs):
            results[j].append(it.get_tensor(detail["index"]).copy())
    arrays = {"input_0": np.stack(samples)}
    arrays.update({f"output_{j}": np.stack(r) for j, r in enumerate(results)})
    np.savez(target, **arrays)
    return target


def convert(
    model: Path,
    tmp_path: Path,
    golden_npz: Path | None = None,
    tolerance: float = 0.0,
    ulp: int | None = None,
):
    config: dict = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
    }
    if golden_npz is not None:
        config["test"] = {
            "enabled": True,
            "golden_data": str(golden_npz),
            "tolerance": tolerance,
            "tolerance_ulp": ulp,
        }
    return AotConverter(ConvertArgs.model_validate(config)).convert()


def check(
    m: Model, tmp_path: Path, samples, tolerance: float = 0.0, resolver=OpResolverType.BUILTIN_REF
) -> None:
    model = m.save(tmp_path / "m.tflite")
    result = convert(model, tmp_path, golden(model, samples, tmp_path / "g.npz", resolver), tolerance)
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def int_samples(seed: int, shape, dtype, count: int = 3) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    samples = [rng.integers(info.min, int(info.max) + 1, shape).astype(dtype) for _ in range(count)]
    # Every int8 value at least once (the whole table), and a row of equal values.
    ramp = np.resize(np.arange(info.min, int(info.max) + 1, max(1, (int(info.max) - info.min) // 255)), shape)
    return [*samples, ramp.astype(dtype), np.full(shape, info.max, dtype)]


def float_samples(seed: int, shape, scale: float = 4.0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) * scale).astype(np.float32) for _ in range(3)]


@pytest.mark.parametrize(
    "shape, in_quant",
    [((2, 5, 24), (0.05, 3)), ((1, 10), (0.03120156, -1)), ((3, 7), (0.2, -100)), ((4, 1, 2, 33), (0.01, 0))],
)
def test_int8_operators_match_reference(tmp_path, shape, in_quant):
    m = Model(shape, "int8", in_quant)
    m.op("GELU", (0.02, -100), gelu(False))
    m.op("GELU", (0.03, -90), gelu(True))
    m.op("RELU_0_TO_1", (1 / 255, -128))
    m.op("RELU_0_TO_1", (0.01, 5))
    m.op("LOG_SOFTMAX", (16 / 256, 127))
    m.op("L2_NORMALIZATION", (1 / 128, 0))
    check(m, tmp_path, int_samples(sum(shape), shape, np.int8))


@pytest.mark.parametrize("shape, in_scale", [((2, 5, 24), 3e-4), ((1, 600), 1e-4), ((3, 4, 4, 2), 2.0**-11)])
def test_int16_gelu_and_prelu_match_reference(tmp_path, shape, in_scale):
    m = Model(shape, "int16", (in_scale, 0))
    m.op("GELU", (in_scale * 0.7, 0), gelu(False))
    m.op("GELU", (in_scale, 0), gelu(True))
    # LiteRT's int16 PRELU is 16x8: int8 alpha (per-channel-like vector, or the whole shape).
    alpha_data = np.linspace(-128, 127, shape[-1]).astype(np.int8)
    alpha = m.b.add_tensor("alpha", (shape[-1],), "int8", quantization=(0.01, 3), data=alpha_data)
    m.op("PRELU", (in_scale * 1.3, 0), extra=(alpha,))
    whole = m.b.add_tensor(
        "alpha_full", shape, "int8", quantization=(0.004, -7), data=np.resize(alpha_data, shape)
    )
    m.op("PRELU", (in_scale, 0), extra=(whole,))
    check(m, tmp_path, int_samples(len(shape), shape, np.int16))


@pytest.mark.parametrize("shape", [(2, 5, 24), (1, 10), (6,), (3, 5)])
def test_float_operators_match_reference(tmp_path, shape):
    """Bit for bit, GELU included: sizes with a remainder of 0 to 3 after whole packets of four
    cover both of the reference's erfc paths (Eigen's packet exp, the C library's on the tail)."""
    m = Model(shape, "float32")
    m.op("GELU", options=gelu(False))
    m.op("GELU", options=gelu(True))
    m.op("RELU_0_TO_1")
    m.op("LOG_SOFTMAX")
    m.op("L2_NORMALIZATION")
    samples = [*float_samples(len(shape), shape), np.zeros(shape, np.float32)]
    check(m, tmp_path, samples)


@pytest.mark.parametrize(
    "shape, options", [((1, 4, 4, 12), lrn(2, 1.0, 0.5, 0.75)), ((2, 3, 1, 5), lrn(0, 2.0, 1e-3, 0.5))]
)
def test_local_response_normalization_matches_reference(tmp_path, shape, options):
    m = Model(shape, "float32")
    m.op("LOCAL_RESPONSE_NORMALIZATION", options=options)
    m.op("LOCAL_RESPONSE_NORMALIZATION", options=lrn(5, 0.5, 2.0, 1.0))
    check(m, tmp_path, float_samples(7, shape, 2.0))


@pytest.mark.cross
@pytest.mark.parametrize("core", sorted(CORES))
def test_float_gelu_and_lrn_on_the_cores(tmp_path, core):
    """On the Cortex-M cores (QEMU): GELU's Eigen approximations (newlib's expf on the tail) and
    LRN's double-precision power (software on the M4F) stay within the cores' float bound of the
    reference. Measured: every value exact on both cores; the bound leaves room for newlib's expf
    and pow, which are not glibc's, to round differently on other inputs."""
    shape = (1, 3, 5, 7)
    m = Model(shape, "float32")
    m.op("GELU", options=gelu(False))
    m.op("GELU", options=gelu(True))
    m.op("LOCAL_RESPONSE_NORMALIZATION", options=lrn(2, 1.0, 0.5, 0.75))
    model = m.save(tmp_path / "m.tflite")
    npz = golden(model, float_samples(11, shape), tmp_path / "g.npz")
    result = convert(model, tmp_path, npz, ulp=CORE_FLOAT_ULP[core])
    elf = cross_build_module(result.output, tmp_path / "build", CORES[core], prefix=result.prefix)
    run = run_qemu(elf, CORES[core], timeout=300, count=False)
    assert run.returncode == 0, run.stdout


@pytest.mark.parametrize(
    "shape, in_quant, out_quant", [((2, 5, 24), (0.05, 3), (0.02, 20)), ((9,), (0.1, -128), (0.05, 100))]
)
def test_elu_matches_litert(tmp_path, shape, in_quant, out_quant):
    """ELU is absent from the reference resolver; the built-in kernels compute the same table."""
    m = Model(shape, "int8", in_quant)
    m.op("ELU", out_quant)
    check(
        m, tmp_path, int_samples(3, shape, np.int8), resolver=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    )


def test_float_elu_matches_litert(tmp_path):
    m = Model((3, 17), "float32")
    m.op("ELU")
    check(m, tmp_path, float_samples(5, (3, 17)), resolver=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)


@pytest.mark.parametrize(
    "name, dtype, in_quant, out_quant, ours",
    [
        ("HARD_SWISH", "int16", (1e-3, 0), (1e-3, 0), "HARD_SWISH"),
        ("RELU_0_TO_1", "int16", (1e-3, 0), (1e-3, 0), "RELU_0_TO_1"),
        ("LOG_SOFTMAX", "int16", (1e-3, 0), (1e-3, 0), "LOG_SOFTMAX"),
        ("L2_NORMALIZATION", "int16", (1e-3, 0), (1e-3, 0), "L2_NORMALIZATION"),
        ("ELU", "int16", (1e-3, 0), (1e-3, 0), "ELU"),
        ("LOG_SOFTMAX", "int8", (0.05, 0), (1 / 256, -128), "scale 16/256 and zero point 127"),
        ("L2_NORMALIZATION", "int8", (0.05, 0), (1 / 256, 0), "scale 1/128 and zero point 0"),
    ],
)
def test_refuses_what_litert_refuses(tmp_path, name, dtype, in_quant, out_quant, ours):
    m = Model((2, 8), dtype, in_quant)
    m.op(name, out_quant)
    model = m.save(tmp_path / "bad.tflite")
    resolver = (
        OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES if name == "ELU" else OpResolverType.BUILTIN_REF
    )
    with pytest.raises((RuntimeError, ValueError)):
        it = interpreter(model, resolver)
        it.invoke()
    with pytest.raises(UnsupportedModelError, match=ours):
        convert(model, tmp_path)


def test_int16_prelu_refuses_int16_alpha(tmp_path):
    """LiteRT accepts an int16 alpha but reads its bytes as int8; we refuse it instead."""
    m = Model((8,), "int16", (1e-3, 0))
    alpha = m.b.add_tensor(
        "alpha", (8,), "int16", quantization=(1e-3, 0), data=np.arange(8, dtype=np.int16) * 300
    )
    m.op("PRELU", (1e-3, 0), extra=(alpha,))
    model = m.save(tmp_path / "bad.tflite")
    it = interpreter(model, OpResolverType.BUILTIN_REF)
    it.set_tensor(it.get_input_details()[0]["index"], np.full(8, -1000, np.int16))
    it.invoke()
    misread = it.get_tensor(it.get_output_details()[0]["index"])
    assert misread.tolist() != [-(300 * k) // 1000 for k in range(8)]  # not x * alpha
    with pytest.raises(UnsupportedModelError, match="needs int8 alpha"):
        convert(model, tmp_path)


def test_local_response_normalization_needs_four_dimensions(tmp_path):
    m = Model((2, 8), "float32")
    m.op("LOCAL_RESPONSE_NORMALIZATION", options=lrn(1, 1.0, 1.0, 0.5))
    model = m.save(tmp_path / "bad.tflite")
    with pytest.raises(RuntimeError):
        interpreter(model, OpResolverType.BUILTIN_REF)
    with pytest.raises(UnsupportedModelError, match="LiteRT requires 4"):
        convert(model, tmp_path)
