"""The report's goal hints resolve each kind of ``auto`` knob once per goal, not once per operator.

An ``auto`` request resolves from the knob, the operator type, the values offered and the kernel
family only, so :func:`helia_aot.pipeline.knob_hints.goal_hints` keeps one answer per such key:
on a chain of identical convolutions the number of resolutions no longer grows with the layers
(it was knobs x operators x goals, four thousand on the 1,000-layer chain). These tests count
calls and compare the hints, never time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.pipeline import knob_hints
from helia_aot.registry import build_default_registry_context
from helia_aot.testing.conv_chain import conv_chain_model

REGISTRY = build_default_registry_context()


def _goal_hints(layers: int, work: Path, monkeypatch: pytest.MonkeyPatch, goal: str) -> tuple[int, list[Any]]:
    """Resolutions the goal hints asked for on a chain of ``layers``, and the hints (a dry run)."""
    model = conv_chain_model(layers, work / f"chain{layers}.tflite")
    config = ConvertArgs.model_validate(
        {
            "model": {"path": str(model)},
            "module": {"path": str(work / "out")},
            "optimization": {"goal": goal},
            "dry_run": True,
        }
    )
    calls = [0]
    real = knob_hints.resolve_knob

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(knob_hints, "resolve_knob", counting)
    result = AotConverter(config, REGISTRY).convert()
    return calls[0], [h for h in result.report.hints if h.setting == "goal"]


@pytest.mark.parametrize("goal", ["balanced", "size"])
def test_goal_hints_resolve_once_per_kind_of_operator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, goal: str
) -> None:
    few_calls, few = _goal_hints(2, tmp_path, monkeypatch, goal)
    many_calls, many = _goal_hints(12, tmp_path, monkeypatch, goal)
    assert 0 < few_calls == many_calls  # one kind of operator: the same questions however long
    assert [h.alternative for h in few] == [h.alternative for h in many]
    assert [len(h.operators) for h in many] == [6 * len(h.operators) for h in few]  # every layer


def test_every_layer_still_gets_its_own_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One resolution stands for many operators, yet the hint still names each of them once."""
    _, hints = _goal_hints(5, tmp_path, monkeypatch, "balanced")
    listed = [h.operators for h in hints if h.operators]
    assert listed, "another goal resolves the chain's knobs differently"
    assert all(len(ops) == len(set(ops)) == 5 for ops in listed)
