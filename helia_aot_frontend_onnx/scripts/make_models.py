"""Make the ONNX twins of the four MLPerf Tiny models and their golden data (run once by hand).

Never run by CI: it needs torch, which no distribution of this repository depends on. Run it in a
throwaway environment outside the repository:

    python3.11 -m venv /tmp/torch-venv
    /tmp/torch-venv/bin/pip install torch==2.13.0 onnx onnxruntime
    /tmp/torch-venv/bin/python helia_aot_frontend_onnx/scripts/make_models.py

For each architecture (DS-CNN KWS, ResNet-8, MobileNetV1-0.25 VWW, the anomaly-detection
autoencoder) it writes to ``helia_aot_frontend_onnx/tests/data/``:
- ``<name>_float.onnx``: the PyTorch definition with seeded random weights, exported with
  ``torch.onnx.export`` (opset 13, batch-norm folded by the exporter where it follows a conv);
- ``<name>_qdq.onnx``: that model through ``onnxruntime.quantization.quantize_static`` (QDQ
  format, int8 activations, per-channel symmetric int8 weights), calibrated on seeded random
  inputs;
- ``<name>_float.npz`` / ``<name>_qdq.npz``: three inputs (NCHW, float32) and the outputs of
  onnxruntime's default session (``output``); the QDQ file also holds the outputs of the session
  without graph optimizations (``output_unoptimized``), which runs every node as dequantize ->
  float -> quantize;
- ``<name>.json``: the manifest (this script, the torch/onnx/onnxruntime versions, each file's
  sha256 and size).
The float AD autoencoder's model (270k float32 weights, 1.09 MB) is over the repository's 1 MiB
limit for a tracked file: it is left out of git (.gitignore); its manifest entry keeps the sha256
a re-run reproduces. tests/test_onnx_float_twins.py converts the other three float models and
runs the KWS one against its golden data; test_onnx_qdq.py runs the QDQ ones.
The golden inputs are drawn until the three samples' outputs differ from one another, so a
module that ignored its input would fail the golden test.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
from torch import nn

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
SEED = 20261207
CALIBRATION_SAMPLES = 32
GOLDEN_SAMPLES = 3
LOGIT_SPREAD = 2.0
"""The standard deviation of the classifiers' logits over random inputs."""


def conv_bn(
    cin: int, cout: int, k: int, stride: int = 1, groups: int = 1, pad: int | None = None
) -> nn.Sequential:
    pad = k // 2 if pad is None else pad
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride, pad, groups=groups, bias=False), nn.BatchNorm2d(cout), nn.ReLU()
    )


class DsCnn(nn.Module):
    """MLPerf Tiny keyword spotting: DS-CNN (S) on 49x10 MFCCs, 12 classes."""

    def __init__(self) -> None:
        super().__init__()
        layers: list[nn.Module] = [
            nn.Conv2d(1, 64, (10, 4), (2, 2), (5, 1), bias=False),
            nn.BatchNorm2d(64),
            nn.ReLU(),
        ]
        for _ in range(4):
            layers += [conv_bn(64, 64, 3, groups=64), conv_bn(64, 64, 1)]
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(64, 12)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.fc(torch.flatten(self.pool(self.features(x)), 1)), dim=1)


class ResidualStack(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.a = conv_bn(cin, cout, 3, stride)
        self.b = nn.Sequential(nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
        self.shortcut = nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout else nn.Identity()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.b(self.a(x)) + self.shortcut(x))


class ResNet8(nn.Module):
    """MLPerf Tiny image classification: ResNet-8 on 32x32x3 CIFAR-10 images, 10 classes."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn(3, 16, 3)
        self.stacks = nn.Sequential(
            ResidualStack(16, 16, 1), ResidualStack(16, 32, 2), ResidualStack(32, 64, 2)
        )
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.fc(torch.flatten(self.pool(self.stacks(self.stem(x))), 1)), dim=1)


class MobileNetV1Vww(nn.Module):
    """MLPerf Tiny visual wake words: MobileNetV1 with width 0.25 on 96x96x3, 2 classes."""

    def __init__(self) -> None:
        super().__init__()
        plan = [
            (16, 1),
            (32, 2),
            (32, 1),
            (64, 2),
            (64, 1),
            (128, 2),
            (128, 1),
            (128, 1),
            (128, 1),
            (128, 1),
            (128, 1),
            (256, 2),
            (256, 1),
        ]
        layers: list[nn.Module] = [conv_bn(3, 8, 3, 2)]
        cin = 8
        for cout, stride in plan:
            layers += [conv_bn(cin, cin, 3, stride, groups=cin), conv_bn(cin, cout, 1)]
            cin = cout
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d(3)
        self.fc = nn.Linear(256, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.fc(torch.flatten(self.pool(self.features(x)), 1)), dim=1)


class AutoEncoder(nn.Module):
    """MLPerf Tiny anomaly detection: the dense autoencoder on 640 log-mel features."""

    def __init__(self) -> None:
        super().__init__()
        sizes = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128]
        layers: list[nn.Module] = []
        for cin, cout in zip(sizes, sizes[1:], strict=False):
            layers += [nn.Linear(cin, cout), nn.BatchNorm1d(cout), nn.ReLU()]
        layers.append(nn.Linear(128, 640))
        self.net = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


MODELS: dict[str, tuple[Callable[[], nn.Module], tuple[int, ...]]] = {
    "kws_dscnn": (DsCnn, (1, 1, 49, 10)),
    "ic_resnet8": (ResNet8, (1, 3, 32, 32)),
    "vww_mobilenet025": (MobileNetV1Vww, (1, 3, 96, 96)),
    "ad_autoencoder": (AutoEncoder, (1, 640)),
}


def randomize_weights(model: nn.Module, gen: torch.Generator) -> None:
    """He-initialized weights (PyTorch's default init shrinks a ReLU stack's signal layer by
    layer, until a deep one's output no longer depends on its input), and batch-norm running
    statistics a trained network could have, so the folded scales are not all one."""
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu", generator=gen)
            if m.bias is not None:
                nn.init.normal_(m.bias, std=0.05, generator=gen)
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            n = m.num_features
            m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.5)
            m.weight.data.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
            m.bias.data.copy_(torch.randn(n, generator=gen) * 0.1)


def spread_logits(model: nn.Module, shape: tuple[int, ...]) -> None:
    """Scale and centre the classifier so its logits vary from input to input by LOGIT_SPREAD
    (random features averaged over a whole image barely move, and their mean would swamp the
    variation): logits become gain * (logits - their mean over random inputs)."""
    logits: list[torch.Tensor] = []
    handle = model.fc.register_forward_hook(lambda _m, _i, out: logits.append(out))
    with torch.no_grad():
        model(torch.randn((16, *shape[1:]), generator=torch.Generator().manual_seed(SEED)))
        handle.remove()
        mean = logits[0].mean(dim=0)
        gain = LOGIT_SPREAD / float((logits[0] - mean).std())
        model.fc.weight.mul_(gain)
        model.fc.bias.sub_(mean).mul_(gain)


class RandomReader(CalibrationDataReader):
    def __init__(self, name: str, samples: np.ndarray) -> None:
        self.name, self.samples, self.i = name, samples, 0

    def get_next(self) -> dict[str, np.ndarray] | None:
        if self.i >= len(self.samples):
            return None
        self.i += 1
        return {self.name: self.samples[self.i - 1]}


def session(path: Path, optimized: bool) -> ort.InferenceSession:
    options = ort.SessionOptions()
    if not optimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def run(sess: ort.InferenceSession, inputs: np.ndarray) -> np.ndarray:
    name = sess.get_inputs()[0].name
    return np.concatenate([sess.run(None, {name: x})[0] for x in inputs])


def varied_inputs(sess: ort.InferenceSession, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """GOLDEN_SAMPLES inputs whose outputs all differ from one another."""
    for _ in range(100):
        # Multiples of 1/8: exact in float32 and compressible (the .npz files stay small).
        inputs = (np.round(rng.standard_normal((GOLDEN_SAMPLES, *shape)) * 8) / 8).astype(np.float32)
        outputs = run(sess, inputs)
        if all(not np.array_equal(outputs[i], outputs[j]) for i in range(GOLDEN_SAMPLES) for j in range(i)):
            return inputs
    raise SystemExit("no inputs with differing outputs found")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make(name: str, factory: Callable[[], nn.Module], shape: tuple[int, ...]) -> None:
    torch.manual_seed(SEED)
    gen = torch.Generator().manual_seed(SEED)
    model = factory()
    randomize_weights(model, gen)
    model.eval()
    if hasattr(model, "fc"):
        # Random features give near-equal logits, whose softmax quantizes to one output for every
        # input; the classifier is scaled so the logits spread as a trained one's would.
        spread_logits(model, shape)
    float_path, qdq_path = DATA / f"{name}_float.onnx", DATA / f"{name}_qdq.onnx"
    torch.onnx.export(
        model,
        (torch.zeros(shape),),
        str(float_path),
        opset_version=13,
        input_names=["input"],
        output_names=["output"],
        do_constant_folding=True,
        dynamo=False,
    )
    onnx.checker.check_model(onnx.load(str(float_path)))
    rng = np.random.default_rng(SEED)
    calibration = rng.standard_normal((CALIBRATION_SAMPLES, *shape)).astype(np.float32)
    quantize_static(
        str(float_path),
        str(qdq_path),
        RandomReader("input", calibration),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QInt8,
        weight_type=QuantType.QInt8,
    )
    files = {}
    for kind, path in (("float", float_path), ("qdq", qdq_path)):
        sess = session(path, optimized=True)
        inputs = varied_inputs(sess, shape, rng)  # [samples, 1, ...]: one batch-1 input each
        arrays = {"input": inputs, "output": run(sess, inputs)}
        if kind == "qdq":
            arrays["output_unoptimized"] = run(session(path, optimized=False), inputs)
        npz = DATA / f"{name}_{kind}.npz"
        np.savez_compressed(npz, **arrays)
        files[path.name] = path
        files[npz.name] = npz
    manifest = {
        "model": name,
        "source": "helia_aot_frontend_onnx/scripts/make_models.py",
        "seed": SEED,
        "input_shape": list(shape),
        "versions": {
            "torch": torch.__version__,
            "onnx": onnx.__version__,
            "onnxruntime": ort.__version__,
            "python": sys.version.split()[0],
        },
        "quantization": "quantize_static, QDQ, int8 activations, per-channel symmetric int8 weights, "
        f"{CALIBRATION_SAMPLES} seeded random calibration samples",
        "files": {n: {"sha256": sha256(p), "bytes": p.stat().st_size} for n, p in sorted(files.items())},
    }
    (DATA / f"{name}.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(name, {n: p.stat().st_size for n, p in sorted(files.items())})


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for name, (factory, shape) in MODELS.items():
        make(name, factory, shape)


if __name__ == "__main__":
    main()
