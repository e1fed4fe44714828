"""A module converted for a core without Helium carries no Helium-only FULLY_CONNECTED tables.

Why: only Helium reads the integer requantization's multipliers (hk_fully_connected_mve.c's
paths) and runs the per-layer loop fc_helium writes (whose table holds them again); the DSP and
portable paths requantize from the double scales. Converted for an apollo4 platform (Cortex-M4),
MLPerf AD's ten layers used to carry a 4 B-per-unit multiplier table each that its core never
reads (6,688 B in the M4 image); now neither that table nor the loop is emitted, while the same
model converted for an apollo510 platform keeps both (its output byte for byte as before: the
loop in every layer). The M4 module's golden test runs on the M4 in
tests/e2e/test_fc_helium_layers.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helia_aot import AotConverter, ConvertArgs

AD = Path(__file__).resolve().parents[2] / "data" / "models" / "mlperf_ad_fc_autoencoder_int8.tflite"
AD_UNITS = 4 * 128 + 8 + 4 * 128 + 640
"""Output units of AD's ten FULLY_CONNECTED layers."""


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """AD converted for a Cortex-M4 and a Cortex-M55 platform: (FC sources, kernel hint) each."""
    out = {}
    for platform in ("apollo4p_evb", "apollo510_evb"):
        path = tmp_path_factory.mktemp(platform)
        config = {
            "model": {"path": str(AD)},
            "module": {"path": str(path), "name": "ad"},
            "platform": {"name": platform},
        }
        result = AotConverter(ConvertArgs.model_validate(config)).convert()
        sources = sorted(Path(result.output, "src").glob("*fully_connected_[0-9]*.c"))
        (hint,) = [h for h in result.report.hints if h.setting == "kernel"]
        out[platform] = ([p.read_text() for p in sources], hint)
    return out


def test_the_m4_module_has_no_helium_table_and_fewer_constants(converted):
    m4_sources, m4_hint = converted["apollo4p_evb"]
    m55_sources, m55_hint = converted["apollo510_evb"]
    assert len(m4_sources) == len(m55_sources) == 10
    for text in m4_sources:
        assert "requant_multiplier" not in text and "_blocks[" not in text and "__asm__" not in text
        assert "output_scale" in text  # the double scales the M4 requantizes from
    for text in m55_sources:
        assert "_blocks[" in text and "vqrdmlash.s32" in text
    # The packed kernel's constants beyond the generic one's: the multipliers on Helium only.
    saved = m55_hint.facts["const_bytes_saved"] - m4_hint.facts["const_bytes_saved"]
    assert saved == 4 * AD_UNITS == 6_688
