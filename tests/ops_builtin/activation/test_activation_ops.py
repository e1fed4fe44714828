"""The activation and softmax operators against the LiteRT reference interpreter.

Each test builds one model whose branches apply every supported operator to shared inputs
(int8, int16 with power-of-two and general scales, float32), computes the golden outputs with the
BUILTIN_REF interpreter over the whole input range, converts the model, builds the module under
ASan/UBSan and runs its self test. This covers the type and parameter variants the corpus lacks
(int16 paths, RELU_N1_TO_1, negative LEAKY_RELU alpha, int8 PRELU, int8 -> int16 SOFTMAX). It also
checks that configurations LiteRT's Prepare refuses are refused here with a typed error.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import UnsupportedModelError
from helia_aot.litert import schema_py_generated as litert
from helia_aot.litert.builder import LiteRTModelBuilder
from helia_aot.testing import run_module_test_case

SHAPE = (2, 5, 24)


def leaky(alpha: float):
    options = litert.LeakyReluOptionsT()
    options.alpha = alpha
    return options


def softmax(beta: float):
    options = litert.SoftmaxOptionsT()
    options.beta = beta
    return options


class Branches:
    """A builder of models that apply many unary operators to shared inputs."""

    def __init__(self) -> None:
        self.b = LiteRTModelBuilder()
        self.outputs: list[int] = []

    def input(self, dtype, quant=None) -> int:
        return self.b.add_tensor(f"in{len(self.b.tensors)}", SHAPE, dtype, quantization=quant)

    def op(self, name: str, source: int, dtype, quant=None, options=None, extra=()) -> None:
        out = self.b.add_tensor(f"{name.lower()}_{len(self.b.tensors)}", SHAPE, dtype, quantization=quant)
        self.b.add_operator(name, [source, *extra], [out], options)
        self.outputs.append(out)

    def save(self, path: Path, inputs: list[int]) -> Path:
        self.b.set_inputs(inputs)
        self.b.set_outputs(self.outputs)
        return self.b.save(path)


def golden(model: Path, samples: list[list[np.ndarray]], target: Path) -> Path:
    interpreter = Interpreter(model_path=str(model), experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    interpreter.allocate_tensors()
    ins, outs = interpreter.get_input_details(), interpreter.get_output_details()
    results: list[list[np.ndarray]] = [[] for _ in outs]
    for sample in samples:
        for detail, value in zip(ins, sample):
            interpreter.set_tensor(detail["index"], value)
        interpreter.invoke()
        for j, detail in enumerate(outs):
            results[j].append(interpreter.get_tensor(detail["index"]).copy())
    arrays = {f"input_{i}": np.stack([s[i] for s in samples]) for i in range(len(ins))}
    arrays.update({f"output_{j}": np.stack(r) for j, r in enumerate(results)})
    np.savez(target, **arrays)
    return target


def convert_and_run(model: Path, golden_npz: Path, tmp_path: Path, tolerance: float = 0.0) -> None:
    config = {
        "model": {"path": str(model)},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(golden_npz), "tolerance": tolerance},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{run.stdout}\n{run.stderr[-4000:]}"


def int_samples(rng, dtype, count: int = 2) -> list[np.ndarray]:
    info = np.iinfo(dtype)
    return [rng.integers(info.min, int(info.max) + 1, SHAPE).astype(dtype) for _ in range(count)]


def test_int8_activations_match_reference(tmp_path):
    m = Branches()
    q_in = (0.05, 3)
    x = m.input("int8", q_in)
    m.op("RELU", x, "int8", (0.03, -128))
    m.op("RELU6", x, "int8", (6 / 255, -128))
    m.op("RELU_N1_TO_1", x, "int8", (1 / 127, 0))
    m.op("LEAKY_RELU", x, "int8", (0.04, -20), leaky(0.1))
    m.op("LEAKY_RELU", x, "int8", (0.06, 0), leaky(-0.7))
    m.op("HARD_SWISH", x, "int8", (0.04, -90))
    alpha = m.b.add_tensor(
        "alpha", (SHAPE[-1],), "int8", quantization=(0.01, 4), data=np.arange(-60, 60, 5, dtype=np.int8)
    )
    m.op("PRELU", x, "int8", (0.05, -10), extra=(alpha,))
    m.op("LOGISTIC", x, "int8", (1 / 256, -128))
    m.op("TANH", x, "int8", (1 / 128, 0))
    m.op("SOFTMAX", x, "int8", (1 / 256, -128), softmax(1.0))
    m.op("SOFTMAX", x, "int16", (1 / 65536, -32768), softmax(0.5))
    model = m.save(tmp_path / "int8.tflite", [x])
    samples = [[s] for s in int_samples(np.random.default_rng(8), np.int8)]
    convert_and_run(model, golden(model, samples, tmp_path / "g.npz"), tmp_path)


def test_int16_activations_match_reference(tmp_path):
    m = Branches()
    general = m.input("int16", (3e-4, 0))
    pot12 = m.input("int16", (2.0**-12, 0))
    pot11 = m.input("int16", (2.0**-11, 0))
    q15 = (1 / 32768, 0)
    m.op("RELU", general, "int16", (2e-4, 0))
    m.op("RELU6", general, "int16", (6 / 32767, 0))
    m.op("LEAKY_RELU", general, "int16", (3e-4, 0), leaky(0.2))
    m.op("SOFTMAX", general, "int16", q15, softmax(1.0))
    for source in (general, pot12, pot11):
        m.op("LOGISTIC", source, "int16", q15)
        m.op("TANH", source, "int16", q15)
    model = m.save(tmp_path / "int16.tflite", [general, pot12, pot11])
    rng = np.random.default_rng(16)
    samples = [[int_samples(rng, np.int16, 1)[0] for _ in range(3)] for _ in range(2)]
    convert_and_run(model, golden(model, samples, tmp_path / "g.npz"), tmp_path)


def test_float_activations_match_reference(tmp_path):
    m = Branches()
    x = m.input("float32")
    for name in ("RELU", "RELU6", "RELU_N1_TO_1", "HARD_SWISH", "LOGISTIC", "TANH"):
        m.op(name, x, "float32")
    m.op("LEAKY_RELU", x, "float32", options=leaky(0.3))
    alpha = m.b.add_tensor("alpha", (5, 1), "float32", data=np.linspace(-1, 1, 5, dtype=np.float32))
    m.op("PRELU", x, "float32", extra=(alpha,))
    m.op("SOFTMAX", x, "float32", options=softmax(0.7))
    model = m.save(tmp_path / "f32.tflite", [x])
    rng = np.random.default_rng(32)
    samples = [[(rng.standard_normal(SHAPE) * 6).astype(np.float32)] for _ in range(2)]
    convert_and_run(model, golden(model, samples, tmp_path / "g.npz"), tmp_path, tolerance=1e-6)


def module_sources(tmp_path: Path, ops: list[tuple[str, tuple[float, int]]]) -> dict[str, str]:
    """Converts an int8 model applying ``ops`` to one input; returns the module's C files by name,
    the module prefix replaced by ``module``."""
    m = Branches()
    x = m.input("int8", (0.05, 3))
    for name, out_quant in ops:
        m.op(name, x, "int8", out_quant)
    model = m.save(tmp_path / "model.tflite", [x])
    config = {"model": {"path": str(model)}, "module": {"path": str(tmp_path / "out"), "name": "module"}}
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    files = [p for p in Path(result.output).rglob("*") if p.suffix in (".c", ".h")]
    return {"module" + p.name.removeprefix(result.prefix): p.read_text() for p in files}


SIGMOID_WORDS = ("sigmoid", "tanh", "logistic", "lut_s8")


def test_relu_only_module_carries_no_tanh_or_logistic_kernel(tmp_path):
    """Each activation is its own kernel family, so a module copies only what its operators call."""
    sources = module_sources(tmp_path, [("RELU", (0.03, -128)), ("RELU6", (6 / 255, -128))])
    kernels = sorted(name for name in sources if "_hk_" in name)
    assert "module_hk_relu.c" in kernels, kernels
    assert not [name for name in kernels if "sigmoid" in name or "activation" in name], kernels
    for name, text in sources.items():
        found = [word for word in SIGMOID_WORDS if word in text.lower()]
        assert not found, f"{name} mentions {found}"


def test_tanh_module_carries_the_sigmoid_kernel(tmp_path):
    """The counterpart of the ReLU-only check: the words it looks for do appear when TANH is used."""
    sources = module_sources(tmp_path, [("TANH", (1 / 128, 0))])
    assert "module_hk_sigmoid.c" in sources, sorted(sources)
    assert "module_hk_relu.c" not in sources, sorted(sources)
    assert "hk_tanh_s16" in sources["module_hk_sigmoid.c"]


@pytest.mark.parametrize(
    "name, out_quant, message",
    [
        ("LOGISTIC", (1 / 128, -128), "1/256"),
        ("HARD_SWISH", (0.0001, 0), "output scale is too small"),
        ("SOFTMAX", (1 / 256, 0), "zero point -128"),
    ],
)
def test_refuses_what_litert_refuses(tmp_path, name, out_quant, message):
    m = Branches()
    x = m.input("int8", (0.05, 0))
    m.op(name, x, "int8", out_quant, softmax(1.0) if name == "SOFTMAX" else None)
    model = m.save(tmp_path / "bad.tflite", [x])
    config = {"model": {"path": str(model)}, "module": {"path": str(tmp_path / "out"), "name": "module"}}
    with pytest.raises(UnsupportedModelError, match=message):
        AotConverter(ConvertArgs.model_validate(config)).convert()
