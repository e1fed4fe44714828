"""The TILE relabelling that lets the reference kernels run the int8 U-Net (relabelled_reference.py).

The edit must touch only the operator code's version, make the model loadable by BUILTIN_REF, and
the substitution of the recorded outputs must refuse a reference that strays from the recording.
"""

from __future__ import annotations

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter, OpResolverType
from helia_aot.testing import corpus_golden_to_npz

from .corpus import golden_path, manifest, model_path
from .relabelled_reference import reference_golden, relabel_operator_version

ENTRY = next(e for e in manifest() if e["name"] == "small_unet_upsample_concat_int8")


def test_relabelling_changes_only_the_version_and_the_reference_resolver_loads_it(tmp_path):
    original = model_path(ENTRY).read_bytes()
    relabelled = relabel_operator_version(original, "TILE", 3, 2)
    changed = [i for i, (a, b) in enumerate(zip(original, relabelled)) if a != b]
    assert len(relabelled) == len(original) and len(changed) == 1
    assert original[changed[0]] == 3 and relabelled[changed[0]] == 2
    with pytest.raises(ValueError, match="TILE"):
        Interpreter(
            model_path=str(model_path(ENTRY)), experimental_op_resolver_type=OpResolverType.BUILTIN_REF
        ).allocate_tensors()
    copy = tmp_path / "m.tflite"
    copy.write_bytes(relabelled)
    Interpreter(
        model_path=str(copy), experimental_op_resolver_type=OpResolverType.BUILTIN_REF
    ).allocate_tensors()


def test_relabelling_refuses_a_model_without_that_version():
    with pytest.raises(ValueError, match="no TILE operator code of version 2"):
        relabel_operator_version(model_path(ENTRY).read_bytes(), "TILE", 2, 1)


def test_reference_outputs_replace_the_recording_within_one_lsb(tmp_path):
    golden = corpus_golden_to_npz(golden_path(ENTRY), tmp_path / "golden.npz")
    with np.load(golden) as data:
        recorded = data["output_0"].copy()
    reference_golden(ENTRY, model_path(ENTRY), golden)
    with np.load(golden) as data:
        replaced = data["output_0"]
    gap = np.abs(replaced.astype(np.int64) - recorded.astype(np.int64))
    assert gap.max() == 1 and 0 < (gap != 0).sum() <= 2  # the optimized LOGISTIC's two values


def test_a_recording_further_off_than_one_lsb_is_refused(tmp_path):
    golden = corpus_golden_to_npz(golden_path(ENTRY), tmp_path / "golden.npz")
    with np.load(golden) as data:
        arrays = {key: data[key].copy() for key in data.files}
    arrays["output_0"][0].flat[0] = np.int8(arrays["output_0"][0].flat[0] ^ 0x10)
    np.savez(golden, **arrays)
    with pytest.raises(AssertionError, match="LSB from the optimized recording"):
        reference_golden(ENTRY, model_path(ENTRY), golden)
