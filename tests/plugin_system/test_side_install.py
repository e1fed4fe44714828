"""The plugin author guide's side installation, done for real: ``pip install --no-deps --target``
puts a pack in a folder of its own, and ``PYTHONPATH`` makes an existing helia-aot find it while
the environment stays exactly as it was (no distribution added, upgraded or removed).

The pack is a few lines written here (a platform, the smallest thing a pack can register) and is
built without network access (``--no-build-isolation``, setuptools from the environment).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata

PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "helia-aot-sideload-probe"
version = "1.0.0"
dependencies = ["helia-aot-core==999.0"]  # unsatisfiable: --no-deps must not try to resolve it

[project.entry-points.helia_aot]
sideload_probe = "sideload_probe.plugin"

[tool.setuptools]
packages = ["sideload_probe"]
"""

PLUGIN = """from helia_aot.platforms import MemoryType, SocCapability, SocPlatform
from helia_aot.plugins import hookimpl


@hookimpl
def helia_aot_platforms():
    return [
        SocPlatform(
            name="sideload_board",
            cpu="cortex-m4",
            capabilities=(SocCapability.MCU,),
            memories={MemoryType.SRAM: 65536},
            preferred_order=(MemoryType.SRAM,),
        )
    ]
"""


def _distributions() -> list[str]:
    """Every distribution the environment has installed, with its version and location."""
    return sorted(f"{d.metadata['Name']}=={d.version}@{d.locate_file('')}" for d in metadata.distributions())


def test_a_pack_installed_with_target_is_found_through_pythonpath(tmp_path):
    project = tmp_path / "pack"
    (project / "sideload_probe").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT)
    (project / "sideload_probe" / "__init__.py").write_text("")
    (project / "sideload_probe" / "plugin.py").write_text(PLUGIN)
    before = _distributions()
    packs = tmp_path / "helia-packs"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(packs),
            str(project),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    assert _distributions() == before, "pip changed the existing installation"
    assert not any("sideload" in name for name in _distributions())
    helia = [sys.executable, "-m", "helia_aot", "platforms", "list", "--json"]
    env = dict(os.environ, PYTHONPATH=str(packs))
    with_pack = subprocess.run(helia, capture_output=True, text=True, check=True, timeout=120, env=env).stdout
    names = [p["name"] for p in json.loads(with_pack)["platforms"]]
    assert "sideload_board" in names and "apollo510_evb" in names
