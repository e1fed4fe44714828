"""docs/examples/*.ipynb run top to bottom on a Jupyter kernel (nbclient) without an error.

The notebook converts, validates on the host, sweeps goals and planners, profiles each distinct
module under QEMU and draws its plots (matplotlib, inline backend). For a user it reads the bundled KWS model;
here it runs on a five-operator int8 block instead, so the QEMU profiles stay short: the one line
that names the model is replaced, and the test checks that line exists so the swap cannot go stale.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbclient
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "docs" / "examples").glob("*.ipynb"))
SMALL = ROOT / "tests" / "data" / "models" / "small_mobilenetv2_block_int8.tflite"
MODEL_LINE = 'MODEL = Path("kws_int8.tflite")'


def test_there_is_a_notebook():
    assert [path.name for path in NOTEBOOKS] == ["convert_validate_sweep.ipynb"]


@pytest.mark.cross
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[path.name for path in NOTEBOOKS])
def test_notebook_runs_without_error(path, tmp_path):
    from helia_aot.testing import require_toolchain

    require_toolchain()
    notebook = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")  # stored clean
    setup = [cell for cell in notebook.cells if MODEL_LINE in cell.source]
    assert len(setup) == 1
    setup[0].source = setup[0].source.replace(MODEL_LINE, f'MODEL = Path("{SMALL.name}")')
    shutil.copy(SMALL, tmp_path / SMALL.name)
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    text = "".join(output.get("text", "") for output in outputs)
    assert "PASS: bit-exact" in text and "distinct modules profiled" in text
    images = [output for output in outputs if "image/png" in output.get("data", {})]
    assert len(images) == 2  # the Pareto plot and the cycle bars
    assert (tmp_path / "notebook_out" / "pareto.png").stat().st_size > 0
    assert (tmp_path / "notebook_out" / "cycle_bars.png").stat().st_size > 0
