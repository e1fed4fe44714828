"""A module converted for a core without Helium carries the integer requantization its DSP
kernel reads, and none of the Helium-only FULLY_CONNECTED code.

Why: the per-layer loop fc_helium writes (its block table, its assembly) runs on Helium only, so
a module converted for an apollo4 platform (Cortex-M4) does not get it. The integer
requantization's multipliers (``requant_multiplier``) are read by Helium and by the DSP path
(hk_fully_connected_dsp.c), whose packed groups then requantize in a dozen instructions an
output instead of the software double emulation: MLPerf AD converted for apollo4p_evb takes
fewer modeled M4 cycles with the table than without it (bench/mlperf_cycles.py), so both
platforms' modules carry it (4 B a unit, the same constants the kernel hint counts). The M4
module's golden test runs on the M4 in tests/e2e/test_fc_helium_layers.py.
"""

from __future__ import annotations

import re
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


def test_the_m4_module_has_the_multipliers_but_no_helium_loop(converted):
    m4_sources, m4_hint = converted["apollo4p_evb"]
    m55_sources, m55_hint = converted["apollo510_evb"]
    assert len(m4_sources) == len(m55_sources) == 10
    for text in m4_sources:
        assert "_blocks[" not in text and "__asm__" not in text
        assert "requant_multiplier" in text  # the integer form the DSP path reads
        assert "output_scale" in text  # the double scales of the units outside the groups
    for text in m55_sources:
        assert "_blocks[" in text and "vqrdmlash.s32" in text and "requant_multiplier" in text
    # The packed kernel's constants beyond the generic one's: the multipliers on both cores.
    assert m55_hint.facts["const_bytes_saved"] == m4_hint.facts["const_bytes_saved"]
    # One multiplier a unit in every layer.
    tables = [re.search(r"requant_multiplier\[(\d+)\] = \{", text) for text in m4_sources]
    assert sum(int(t[1]) for t in tables if t is not None) == AD_UNITS
