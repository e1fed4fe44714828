"""Every promised corpus model converts, builds warning-free under ASan/UBSan, and matches LiteRT.

One test id per model. Integer outputs must match the reference exactly, and so must float outputs
(``FLOAT_TOLERANCE`` is 0: the host build matches the reference bit for bit; see corpus.py). Besides
the recorded samples, each module's self test runs four extreme samples (all minimum, all maximum,
alternating, random; see hostile_inputs.py) in the same build, under the same sanitizers. A model
recorded with LiteRT's optimized kernels only because the reference resolver lacks its declared
operator version is checked against the reference kernels instead (relabelled_reference.py).
"""

from __future__ import annotations

import re

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import HeliaAotError, UnsupportedModelError
from helia_aot.pipeline.load import load_model
from helia_aot.pipeline.transform import run_transforms
from helia_aot.registry import build_default_registry_context
from helia_aot.testing import run_module_test_case

from .corpus import (
    EXPECTED_UNSUPPORTED,
    PROMISED_OPS,
    REWRITTEN_BY_TRANSFORMS,
    UNSUPPORTED_FOR_A_TENSOR_TYPE,
    manifest,
    model_path,
    promised,
)
from .corpus_golden import golden_test_settings

ENTRIES = manifest()
PROMISED = [e for e in ENTRIES if promised(e)]
OTHERS = [e for e in ENTRIES if not promised(e)]


def convert(entry, tmp_path, **overrides):
    config = {
        "model": {"path": str(model_path(entry))},
        "module": {"path": str(tmp_path / "out"), "name": "module"},
        "test": golden_test_settings(entry, tmp_path),
    }
    for key, value in overrides.items():
        if isinstance(value, list):
            config[key] = value
        else:
            config.setdefault(key, {}).update(value)
    return AotConverter(ConvertArgs.model_validate(config)).convert()


TRANSFORM_SETTINGS = {"transforms_on": None, "transforms_off": [{"name": "*", "enabled": False}]}
"""Every model is checked with the graph transforms at their defaults (all on); the models a
transform rewrites (REWRITTEN_BY_TRANSFORMS) are checked with them all off as well."""


def transformed_graph(entry, transforms):
    """The operators (type, wiring, storage sharing) a conversion lowers with ``transforms``."""
    config = ConvertArgs.model_validate({"model": {"path": str(model_path(entry))}, "transforms": transforms})
    context = build_default_registry_context()
    model = run_transforms(load_model(model_path(entry), 0, context), config, context)
    return [(o.op_type, o.input_ids, o.output_ids, o.shares_input_storage) for o in model.operators]


def rewritten(entry) -> bool:
    """Whether switching every transform off changes the graph this model lowers to."""
    off = TRANSFORM_SETTINGS["transforms_off"]
    return transformed_graph(entry, off) != transformed_graph(entry, [])


CASES = [pytest.param(e, "transforms_on", id=f"{e['name']}-transforms_on") for e in PROMISED] + [
    pytest.param(e, "transforms_off", id=f"{e['name']}-transforms_off")
    for e in PROMISED
    if e["name"] in REWRITTEN_BY_TRANSFORMS
]


@pytest.mark.parametrize(("entry", "setting"), CASES)
def test_promised_model_matches_reference(entry, setting, tmp_path):
    transforms = TRANSFORM_SETTINGS[setting]
    if transforms:
        # A transforms-off case that lowers the same graph would only repeat the transforms-on one.
        assert rewritten(entry), f"no transform rewrites {entry['name']}; drop it from the list"
    result = convert(entry, tmp_path, **({"transforms": transforms} if transforms else {}))
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{entry['name']} ({setting}):\n{run.stdout}\n{run.stderr[-4000:]}"


def test_the_rewritten_list_is_every_model_a_transform_changes():
    """REWRITTEN_BY_TRANSFORMS, which decides the transforms-off cases at collection, is exactly the
    promised models whose graph changes when every transform is off (about a second for all)."""
    assert REWRITTEN_BY_TRANSFORMS <= {e["name"] for e in PROMISED}
    assert {e["name"] for e in PROMISED if rewritten(e)} == REWRITTEN_BY_TRANSFORMS


def test_the_unsupported_list_names_only_models_beyond_the_promise():
    names = {e["name"] for e in OTHERS}
    assert EXPECTED_UNSUPPORTED <= names, sorted(EXPECTED_UNSUPPORTED - names)
    assert set(UNSUPPORTED_FOR_A_TENSOR_TYPE) <= EXPECTED_UNSUPPORTED


if OTHERS:
    # Models beyond the promise (none today: every corpus model is promised, which
    # test_every_corpus_model_is_promised pins) each get this check.
    @pytest.mark.parametrize("entry", OTHERS, ids=[e["name"] for e in OTHERS])
    def test_other_model_fails_with_typed_error_or_matches(entry, tmp_path):
        """A model beyond the promise fails with UnsupportedModelError exactly when it is listed in
        EXPECTED_UNSUPPORTED, and the error names the operators outside the promise (all of them, and
        no promised one, since those convert); any other model converts and matches the reference."""
        if entry["name"] not in EXPECTED_UNSUPPORTED:
            try:
                result = convert(entry, tmp_path)
            except HeliaAotError as error:
                pytest.fail(
                    f"{entry['name']} is not in EXPECTED_UNSUPPORTED: {type(error).__name__}: {error}"
                )
            run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
            assert run.passed, f"{entry['name']}:\n{run.stdout}\n{run.stderr[-4000:]}"
            return
        with pytest.raises(UnsupportedModelError) as info:
            convert(entry, tmp_path)
        assert info.value.exit_code == 1
        message = str(info.value)
        if entry["name"] in UNSUPPORTED_FOR_A_TENSOR_TYPE:
            assert UNSUPPORTED_FOR_A_TENSOR_TYPE[entry["name"]] in message, message
            return
        named = set(re.findall(r"#\d+ ([A-Z][A-Z0-9_]*):", message))
        assert named == set(entry["ops"]) - PROMISED_OPS, message

else:

    def test_every_corpus_model_is_promised():
        """Every corpus model's operators are promised, so the corpus test above covers them all
        and nothing may be listed as unsupported."""
        assert [e["name"] for e in ENTRIES if not promised(e)] == []
        assert EXPECTED_UNSUPPORTED == frozenset()
