"""The Transform stage runs the AIR verifier only where a transform rewrote the graph.

A transform that found nothing to do sets ``rewrote = False``; the stage then skips the verifier
after it (a walk over every tensor and operator, six of them per conversion before), verifies
after each transform that rewrote, and verifies once at the end when none did. A transform that
says nothing (a plugin written before ``rewrote`` existed) is verified as before. These tests
count the verifier's runs, not time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helia_aot import ConvertArgs
from helia_aot.air import AirModel
from helia_aot.errors import OperatorOrderError
from helia_aot.pipeline import transform as stage
from helia_aot.pipeline.load import load_model
from helia_aot.registry import build_default_registry_context
from helia_aot.testing.conv_chain import conv_chain_model

MODELS = Path(__file__).resolve().parents[1] / "data" / "models"
CONTEXT = build_default_registry_context()


def _config(path: Path) -> ConvertArgs:
    return ConvertArgs.model_validate({"model": {"path": str(path)}})


@pytest.fixture
def verifier_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Record the operator count of every graph the Transform stage hands to the verifier."""
    runs: list[int] = []
    real = stage.verify_model

    def counting(model: AirModel) -> list[str]:
        runs.append(len(model.operators))
        return real(model)

    monkeypatch.setattr(stage, "verify_model", counting)
    return runs


@pytest.fixture
def selected(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The transform instances the stage ran, to read what each reported."""
    instances: list[Any] = []
    real = stage.select_transforms

    def keep(*args: Any) -> list[Any]:
        instances.extend(real(*args))
        return instances

    monkeypatch.setattr(stage, "select_transforms", keep)
    return instances


def test_chain_with_nothing_to_rewrite_is_verified_once(
    tmp_path: Path, verifier_runs: list[int], selected: list[Any]
) -> None:
    path = conv_chain_model(4, tmp_path / "chain.tflite")
    model = stage.run_transforms(load_model(path, 0, CONTEXT), _config(path), CONTEXT)
    assert len(selected) >= 6  # every built-in transform ran ...
    assert [getattr(t, "rewrote", None) for t in selected] == [False] * len(selected)  # ... idle
    assert verifier_runs == [len(model.operators)] == [4]  # one run, at the end of the stage


@pytest.mark.parametrize(
    ("model_file", "rewriting", "options"),
    [
        ("squeeze_int8.tflite", "PRUNE_IDENTITY_OPS", {}),
        ("transpose_conv_s1_valid_int8.tflite", "TRANSPOSE_REVERSE_CONV", {"input_channel_threshold": 0}),
    ],
)
def test_a_rewriting_builtin_transform_is_verified_after_it(
    model_file: str,
    rewriting: str,
    options: dict[str, int],
    verifier_runs: list[int],
    selected: list[Any],
) -> None:
    path = MODELS / model_file
    config = ConvertArgs.model_validate(
        {"model": {"path": str(path)}, "transforms": [{"name": rewriting, "options": options}]}
    )
    stage.run_transforms(load_model(path, 0, CONTEXT), config, CONTEXT)
    rewrote = [t.NAME for t in selected if getattr(t, "rewrote", True)]
    assert rewrote == [rewriting]
    assert len(verifier_runs) == 1  # after the rewrite; no second run for the idle ones after it


class _Idle:
    """Finds nothing to rewrite and says so."""

    NAME = "IDLE"

    def apply(self, model: AirModel, context: Any) -> AirModel:
        self.rewrote = False
        return model


class _Silent:
    """A plugin transform from before ``rewrote``: it says nothing, so it counts as a rewrite."""

    NAME = "SILENT"

    def apply(self, model: AirModel, context: Any) -> None:
        return None


class _Breaking:
    """Leaves a graph whose last operator reads a tensor that does not exist."""

    NAME = "BREAKING"

    def __init__(self, report: bool | None) -> None:
        self.report = report

    def apply(self, model: AirModel, context: Any) -> AirModel:
        model.operators[-1].input_ids[0] = "no_such_tensor"
        if self.report is not None:
            self.rewrote = self.report
        return model


def _run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, transforms: list[Any]) -> AirModel:
    monkeypatch.setattr(stage, "select_transforms", lambda entries, context: transforms)
    path = conv_chain_model(2, tmp_path / "chain.tflite")
    return stage.run_transforms(load_model(path, 0, CONTEXT), _config(path), CONTEXT)


@pytest.mark.parametrize(
    ("transforms", "runs"),
    [
        ([_Idle(), _Idle()], 1),  # nothing rewrote: once, at the end
        ([_Idle(), _Silent(), _Idle()], 1),  # after the silent one; the graph is unchanged since
        ([_Silent(), _Idle(), _Silent()], 2),  # after each silent one
    ],
)
def test_verifier_runs_once_per_rewriting_transform(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    verifier_runs: list[int],
    transforms: list[Any],
    runs: int,
) -> None:
    _run(monkeypatch, tmp_path, transforms)
    assert len(verifier_runs) == runs


@pytest.mark.parametrize(
    ("report", "blamed"),
    [(True, "transform BREAKING"), (None, "transform BREAKING"), (False, "the Transform stage")],
)
def test_a_broken_graph_is_still_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, report: bool | None, blamed: str
) -> None:
    # A transform that wrongly says it changed nothing is still caught by the check at the end.
    with pytest.raises(OperatorOrderError, match=f"^{blamed} left an invalid graph: .*no_such_tensor"):
        _run(monkeypatch, tmp_path, [_Idle(), _Breaking(report), _Idle()])
