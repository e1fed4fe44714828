"""Write the example model (CUSTOM_NOOP then EXAMPLE_GAIN_CLIP) and its golden data.

    python build_model.py [--out DIR]

The model is built with helia-aot-core's LiteRT model builder, so no TensorFlow is needed. No
interpreter runs the custom operators, so the golden outputs come from the pack's numpy reference,
with the gain that ``convert.yaml`` sets. Both files are deterministic: rerunning reproduces them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import yaml
from helia_aot.pack import LiteRTModelBuilder
from helia_aot_example_ops import custom_noop, gain_clip
from helia_aot_example_ops.reference import gain_clip as gain_clip_reference

HERE = Path(__file__).resolve().parent
MODEL_NAME = "gain_clip_int8.tflite"
GOLDEN_NAME = "gain_clip_golden.npz"
ELEMENTS = 256
INPUT_QUANT = (0.05, 3)
OUTPUT_QUANT = (0.1, -5)
SHIFT, CLIP_MIN, CLIP_MAX = 8, -100, 110


def configured_gain(config_path: Path) -> int:
    """The gain the EXAMPLE_GAIN_CLIP rule of ``convert.yaml`` sets (one source of truth)."""
    config = yaml.safe_load(config_path.read_text(encoding="utf-8"))
    for rule in config.get("operators") or ():
        if rule.get("type") == gain_clip.KEY and "gain" in (rule.get("attributes") or {}):
            return int(rule["attributes"]["gain"])
    raise SystemExit(f"{config_path} sets no gain for {gain_clip.KEY}")


def build_model() -> LiteRTModelBuilder:
    """x -> CUSTOM_NOOP -> y -> EXAMPLE_GAIN_CLIP -> z, all int8 of shape (1, 256)."""
    builder = LiteRTModelBuilder(description="helia-aot-example-ops: CUSTOM_NOOP and EXAMPLE_GAIN_CLIP")
    x = builder.add_tensor("x", (1, ELEMENTS), "int8", quantization=INPUT_QUANT)
    y = builder.add_tensor("y", (1, ELEMENTS), "int8", quantization=INPUT_QUANT)
    z = builder.add_tensor("z", (1, ELEMENTS), "int8", quantization=OUTPUT_QUANT)
    builder.add_custom_operator(custom_noop.CUSTOM_CODE, [x], [y])
    builder.add_custom_operator(
        gain_clip.CUSTOM_CODE, [y], [z], gain_clip.encode_options(SHIFT, CLIP_MIN, CLIP_MAX)
    )
    builder.set_inputs([x])
    builder.set_outputs([z])
    return builder


def golden_inputs() -> np.ndarray:
    """Three samples: every int8 value once (ties, both clips and zero), then two random ones."""
    rng = np.random.default_rng(20240501)
    every_value = np.arange(-128, 128, dtype=np.int8)
    random = rng.integers(-128, 128, size=(2, ELEMENTS), dtype=np.int8)
    return np.concatenate([every_value[None, :], random]).reshape(3, 1, ELEMENTS)


def golden_outputs(inputs: np.ndarray, gain: int) -> np.ndarray:
    """The reference output of each sample (CUSTOM_NOOP copies, so it feeds the gain-clip as is)."""
    return gain_clip_reference(
        inputs,
        gain=gain,
        shift=SHIFT,
        clip_min=CLIP_MIN,
        clip_max=CLIP_MAX,
        input_zero_point=INPUT_QUANT[1],
        output_zero_point=OUTPUT_QUANT[1],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="folder to write the files into")
    parser.add_argument(
        "--config",
        type=Path,
        default=HERE / "convert.yaml",
        help="the convert.yaml whose gain the golden data uses",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    model = build_model().save(args.out / MODEL_NAME)
    inputs = golden_inputs()
    np.savez(
        args.out / GOLDEN_NAME, input_0=inputs, output_0=golden_outputs(inputs, configured_gain(args.config))
    )
    print(f"wrote {model} and {args.out / GOLDEN_NAME}")


if __name__ == "__main__":
    main()
