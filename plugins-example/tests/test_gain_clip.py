"""EXAMPLE_GAIN_CLIP through the converter: options decoding, admission checks, golden numerics."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from flatbuffers import flexbuffers
from helia_aot.errors import InvalidConfigError, UnsupportedModelError
from helia_aot.pack import LiteRTModelBuilder
from helia_aot.testing import write_golden
from helia_aot_example_ops import gain_clip
from helia_aot_example_ops.reference import gain_clip as reference

PACK = "helia_aot_example_ops.plugin"
EXAMPLE = Path(__file__).resolve().parents[1] / "example"


def test_options_round_trip():
    options = gain_clip.decode_options(gain_clip.encode_options(5, -20, 30))
    assert (options.shift, options.clip_min, options.clip_max) == (5, -20, 30)
    defaults = gain_clip.decode_options(bytes(flexbuffers.Dumps({"shift": 0})))
    assert (defaults.clip_min, defaults.clip_max) == (-128, 127)


@pytest.mark.parametrize(
    "raw, message",
    [
        (b"", "no custom options"),
        (b"\x01\x02", "not valid FlexBuffers"),
        (bytes(flexbuffers.Dumps([1, 2])), "must be a FlexBuffers map"),
        (bytes(flexbuffers.Dumps({"clip_min": 1})), "no 'shift'"),
        (bytes(flexbuffers.Dumps({"shift": 1, "gain": 2})), "unknown keys \\['gain'\\]"),
        (bytes(flexbuffers.Dumps({"shift": 1.5})), "'shift' must be an integer"),
        (gain_clip.encode_options(25), "shift 25 is outside 0..24"),
        (gain_clip.encode_options(1, 10, -10), "clip range 10..-10"),
        (gain_clip.encode_options(1, -129, 0), "clip range -129..0"),
    ],
)
def test_bad_options_are_rejected(raw, message):
    with pytest.raises(UnsupportedModelError, match=message):
        gain_clip.decode_options(raw)


def model(path: Path, configs: list[dict], *, dtype: str = "int8", out_shape=None) -> Path:
    """One independent gain-clip node per config: input i -> node i -> output i."""
    builder = LiteRTModelBuilder()
    inputs, outputs = [], []
    for i, config in enumerate(configs):
        x = builder.add_tensor(f"x{i}", config["shape"], dtype, quantization=(0.5, config["zp_in"]))
        y = builder.add_tensor(
            f"y{i}", out_shape or config["shape"], dtype, quantization=(0.25, config["zp_out"])
        )
        builder.add_custom_operator(
            gain_clip.CUSTOM_CODE,
            [x],
            [y],
            gain_clip.encode_options(config["shift"], config["clip_min"], config["clip_max"]),
        )
        inputs.append(x)
        outputs.append(y)
    builder.set_inputs(inputs)
    builder.set_outputs(outputs)
    return builder.save(path)


CONFIGS = [
    dict(shape=(2, 3, 5), zp_in=0, zp_out=0, gain=1, shift=0, clip_min=-128, clip_max=127),
    dict(shape=(1, 64), zp_in=-128, zp_out=127, gain=-32768, shift=24, clip_min=-128, clip_max=127),
    dict(shape=(7,), zp_in=12, zp_out=-9, gain=700, shift=9, clip_min=-50, clip_max=40),
    dict(shape=(4, 4), zp_in=-3, zp_out=5, gain=-1234, shift=6, clip_min=0, clip_max=0),
]


def test_golden_over_many_settings(tmp_path, aot_golden):
    """Four nodes with different options, zero points and gains, in one module, three samples."""
    path = model(tmp_path / "many.tflite", CONFIGS)
    rng = np.random.default_rng(1)
    inputs = [rng.integers(-128, 128, size=(3, *c["shape"]), dtype=np.int8) for c in CONFIGS]
    outputs = [
        reference(
            x,
            gain=c["gain"],
            shift=c["shift"],
            clip_min=c["clip_min"],
            clip_max=c["clip_max"],
            input_zero_point=c["zp_in"],
            output_zero_point=c["zp_out"],
        )
        for x, c in zip(inputs, CONFIGS)
    ]
    golden = write_golden(tmp_path / "many.npz", inputs, outputs)
    # Operator ids are the node indices; one rule per node sets its gain.
    rules = [
        {"type": gain_clip.KEY, "id": str(i), "attributes": {"gain": c["gain"]}}
        for i, c in enumerate(CONFIGS)
    ]
    run = aot_golden(path, golden, pack=PACK, operators=rules)
    run.assert_passed()
    assert "3 sample(s), 4 output(s)" in run.host.stdout


def test_the_example_model_matches_its_golden_data(aot_golden):
    run = aot_golden(
        EXAMPLE / "gain_clip_int8.tflite",
        EXAMPLE / "gain_clip_golden.npz",
        pack=PACK,
        operators=[{"type": gain_clip.KEY, "attributes": {"gain": 300}}],
        prefix="gc",
    )
    run.assert_passed()


def test_gain_is_a_required_attribute(tmp_path, aot_convert):
    path = model(tmp_path / "one.tflite", CONFIGS[:1])
    with pytest.raises(InvalidConfigError, match="gain"):
        aot_convert(path, pack=PACK)
    with pytest.raises(InvalidConfigError, match="gain"):
        aot_convert(path, pack=PACK, operators=[{"type": gain_clip.KEY, "attributes": {"gain": 40000}}])


def test_admission_checks(tmp_path, aot_convert):
    rule = [{"type": gain_clip.KEY, "attributes": {"gain": 2}}]
    with pytest.raises(UnsupportedModelError, match="is int16; supported: int8"):
        aot_convert(model(tmp_path / "i16.tflite", CONFIGS[:1], dtype="int16"), pack=PACK, operators=rule)
    with pytest.raises(UnsupportedModelError, match="differs from output shape"):
        aot_convert(model(tmp_path / "shape.tflite", CONFIGS[:1], out_shape=(30,)), pack=PACK, operators=rule)


def test_bad_options_name_the_node(tmp_path, aot_convert):
    builder = LiteRTModelBuilder()
    x = builder.add_tensor("x", (4,), "int8")
    y = builder.add_tensor("y", (4,), "int8")
    builder.add_custom_operator(gain_clip.CUSTOM_CODE, [x], [y], gain_clip.encode_options(30))
    builder.set_inputs([x])
    builder.set_outputs([y])
    with pytest.raises(UnsupportedModelError, match="#0 EXAMPLE_GAIN_CLIP: .*shift 30"):
        aot_convert(builder.save(tmp_path / "bad.tflite"), pack=PACK)
