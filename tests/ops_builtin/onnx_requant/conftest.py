"""The ``onnx_modules`` fixture: the model of every ONNX_* single-operator graph converted, built
and run once per session (see onnx_single_ops.py); the module and its self test's lines."""

from __future__ import annotations

import pytest

from ops_builtin.onnx_requant.onnx_single_ops import ModuleRun, run_all


@pytest.fixture(scope="session")
def onnx_modules(tmp_path_factory) -> ModuleRun:
    return run_all(tmp_path_factory.mktemp("onnx_single_ops"))
