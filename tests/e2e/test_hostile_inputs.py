"""The extreme samples the corpus golden tests add (hostile_inputs.py), and proof that they bite.

The patterns must cover each input's whole range, and a module that is wrong only at the extremes
(the way a requantization that overflows at full scale is) must fail its golden test with them
while passing on the recorded samples alone.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.testing import corpus_golden_to_npz, run_module_test_case

from .corpus import golden_path, manifest, model_path
from .hostile_inputs import PATTERNS, add_hostile_samples, hostile_samples, input_range

ENTRIES = {e["name"]: e for e in manifest()}


@pytest.mark.parametrize("name", ["conv2d_3x3_s2_same_int8", "concat_channels_2inputs_int16x8"])
def test_quantized_inputs_reach_both_ends_of_their_type(name):
    entry = ENTRIES[name]
    samples = hostile_samples(entry)
    assert len(samples) == len(PATTERNS)
    for i, spec in enumerate(entry["inputs"]):
        info = np.iinfo(spec["dtype"])
        low, high, alternating, random = (sample[i] for sample in samples)
        assert low.shape == high.shape == tuple(spec["shape"]) and low.dtype == np.dtype(spec["dtype"])
        assert (low == info.min).all() and (high == info.max).all()
        flat = alternating.ravel()
        assert (flat[0::2] == info.min).all() and (flat[1::2] == info.max).all()
        assert random.min() >= info.min and random.max() <= info.max and len(np.unique(random)) > 2


def test_float_and_index_inputs_stay_in_their_declared_range():
    for name in ("mlperf_ad_fc_autoencoder_float32", "gather_embedding_int32_indices_int8"):
        entry = ENTRIES[name]
        lo, hi = entry["inputs"][0]["golden_range"]
        assert input_range(entry["inputs"][0]) == (lo, hi)
        for sample in hostile_samples(entry):
            assert sample[0].min() >= lo and sample[0].max() <= hi


def test_samples_are_the_same_on_every_call():
    entry = ENTRIES["mlperf_ic_resnet8_int8"]
    for a, b in zip(hostile_samples(entry), hostile_samples(entry)):
        np.testing.assert_array_equal(a[0], b[0])


# A signed overflow only an input element at the int8 maximum reaches: 127 * 16909320 + 8 is
# 2^31. It stands for a requantization that overflows at full scale (UB in C).
OVERFLOW_AT_MAX = """
    {
        volatile int32_t full_scale = (int32_t)((const int8_t *)ctx->inputs[0].data)[0] * 16909320 + 8;
        (void)full_scale;
    }
"""


def _convert(entry, tmp_path, hostile: bool):
    golden = corpus_golden_to_npz(golden_path(entry), tmp_path / "golden.npz")
    if hostile:
        add_hostile_samples(entry, model_path(entry), golden)
    config = {
        "model": {"path": str(model_path(entry))},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": {"enabled": True, "golden_data": str(golden), "tolerance": 0.0},
    }
    result = AotConverter(ConvertArgs.model_validate(config)).convert()
    model_c = result.output / "src" / f"{result.prefix}_model.c"
    source = model_c.read_text()
    run = re.search(rf"int32_t {result.prefix}_model_run\([^)]*\)\n{{\n", source)
    assert run, "the module's run function was not found"
    model_c.write_text(source[: run.end()] + OVERFLOW_AT_MAX + source[run.end() :])
    return result


@pytest.mark.parametrize("hostile", [False, True], ids=["recorded-only", "with-extremes"])
def test_an_overflow_at_full_scale_is_caught_only_with_the_extreme_samples(hostile, tmp_path):
    entry = ENTRIES["conv2d_3x3_s2_same_int8"]
    result = _convert(entry, tmp_path, hostile)
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    if hostile:
        assert not run.passed and "signed integer overflow" in run.stderr, run.stdout + run.stderr[-3000:]
    else:
        assert run.passed, run.stdout + run.stderr[-3000:]  # the recorded samples never reach 127
