"""``helia-aot check`` is the front half of ``convert``: over every model in tests/data, the check
passes exactly when a conversion (a dry run: Load to Plan) does, and when both fail they name the
same operator and tensor."""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import HeliaAotError, UnsupportedModelError
from helia_aot.registry.build import build_default_registry_context
from helia_aot.support import check_model

DATA = Path(__file__).resolve().parents[1] / "data"
MODELS = sorted(DATA.rglob("*.tflite"))


@pytest.fixture(scope="module")
def context():
    return build_default_registry_context()


def _outcome(run):
    try:
        return run(), None
    except HeliaAotError as error:
        return None, error


def test_every_model_is_checked():
    # The corpus, the streaming and recurrent models and the regressions all take part.
    folders = {path.parent.relative_to(DATA).parts[0] for path in MODELS}
    assert {"models", "streaming", "recurrent", "regressions"} <= folders


@pytest.mark.parametrize("model", MODELS, ids=[str(p.relative_to(DATA)) for p in MODELS])
def test_check_passes_exactly_when_convert_does(model, context):
    config = ConvertArgs(model={"path": str(model)}, dry_run=True)
    converted, convert_error = _outcome(lambda: AotConverter(config, context).convert())
    rows, check_error = _outcome(lambda: check_model(config, context))
    failed = [row for row in rows or () if not row.supported]
    if convert_error is None:
        assert converted is not None
        assert check_error is None, check_error
        assert not failed, [row.to_dict() for row in failed]
        return
    if check_error is not None:  # the file or configuration as a whole: the same error
        assert (type(check_error), check_error.message) == (type(convert_error), convert_error.message)
        return
    # Both refuse operators: the conversion's error names an operator and a reason the check
    # puts on that operator's row (the check may find more: it goes on past a failed Load).
    assert isinstance(convert_error, UnsupportedModelError), convert_error
    assert failed
    text = str(convert_error)
    named = [row for row in failed if row.key in text and any(reason in text for reason in row.reasons)]
    assert named, (text, [row.to_dict() for row in failed])
    if len(failed) == 1:
        assert all(reason in text for reason in failed[0].reasons)
