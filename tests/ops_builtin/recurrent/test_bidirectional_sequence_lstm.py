"""BIDIRECTIONAL_SEQUENCE_LSTM on builder-made models, against LiteRT's reference run after run.

Forward and backward cells with and without merged outputs, projection, CIFG and peephole, an
auxiliary input feeding the backward cell or cross-linked into both; each model runs several
samples one after another on one context, checked against one interpreter invoked once per
sample (float32 within 1e-5).
"""

from __future__ import annotations

import pytest
from helia_aot.errors import UnsupportedModelError
from helia_aot.testing import run_module_test_case

from ops_builtin.support.lstm_models import BidiSpec, LstmSpec, bidirectional_model, convert_lstm

BIDI_CASES = [
    BidiSpec(),
    BidiSpec(time_major=False),
    BidiSpec(merge_outputs=True, projection=3),
    BidiSpec(fw_cifg=True, fw_peephole=True),
    BidiSpec(merge_outputs=True, time_major=False, batch=1, projection=3, fw_cifg=True, fw_peephole=True),
    BidiSpec(aux="backward_input"),
    BidiSpec(aux="cross_links", merge_outputs=True),
    BidiSpec(aux="cross_links", fw_cifg=True, time_major=False, batch=1, time=6),
]


@pytest.mark.parametrize("spec", BIDI_CASES, ids=[s.label for s in BIDI_CASES])
def test_bidirectional_lstm_matches_reference_over_consecutive_runs(spec, tmp_path):
    path = bidirectional_model(spec, tmp_path / "model.tflite")
    result = convert_lstm(path, tmp_path, LstmSpec())
    run = run_module_test_case(result.output, tmp_path / "build", prefix=result.prefix)
    assert run.passed, f"{spec}\n{run.stdout}\n{run.stderr[-4000:]}"


def test_bidirectional_merge_of_batch_major_rows_is_refused(tmp_path):
    """LiteRT offsets each batch row's state by the merged width there (past the state tensor)."""
    path = bidirectional_model(BidiSpec(merge_outputs=True, time_major=False), tmp_path / "model.tflite")
    with pytest.raises(UnsupportedModelError, match="merge_outputs with batch-major input"):
        convert_lstm(path, tmp_path, LstmSpec())
