"""Installing plugins-example the way a user does, into a throwaway target, and running commands there.

``pip install --no-deps --no-build-isolation --target <site>`` builds and installs the pack offline
from a copy of its source tree (so no build files land in the repository). Commands then run in a
subprocess whose ``PYTHONPATH`` is that target: the project's own environment plus the pack, which
is exactly what ``pip install ./plugins-example`` into that environment gives a user. The test
process itself never sees the pack, so no other test depends on whether it is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACK_SOURCE = ROOT / "plugins-example"
BIN = Path(sys.executable).parent
ENTRY_POINT = "example_ops"
_IGNORED = shutil.ignore_patterns("build", "dist", "*.egg-info", "out", "__pycache__", ".pytest_cache")


def copy_tree(source: Path, target: Path) -> Path:
    """Copy a source tree without build products or generated modules."""
    shutil.copytree(source, target, ignore=_IGNORED)
    return target


def pip_install(project: Path, site: Path) -> None:
    """Install ``project`` into ``site`` offline (its dependencies are the project's own)."""
    proc = subprocess.run(
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
            str(site),
            str(project),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0:
        raise AssertionError(f"pip install {project} failed:\n{proc.stdout}\n{proc.stderr}")


@dataclass(slots=True)
class InstalledPack:
    """A pack installed into ``site`` from the copy at ``source``."""

    source: Path
    site: Path

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a user who installed the pack: venv ``bin`` first, pack on the path."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HELIA_AOT_"))}
        env.update(
            PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
            PYTHONPATH=str(self.site),
            PYTHONDONTWRITEBYTECODE="1",
            **extra,
        )
        return env

    def run(
        self, command: list[str], cwd: Path, *, timeout: float = 300, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            command, cwd=cwd, env=env or self.env(), capture_output=True, text=True, timeout=timeout
        )


def install_copy(source: Path, workdir: Path) -> InstalledPack:
    """Copy ``source`` under ``workdir`` and install the copy into ``workdir/site``."""
    copy = copy_tree(source, workdir / source.name)
    site = workdir / "site"
    pip_install(copy, site)
    return InstalledPack(copy, site)


def user_env_without_pack() -> dict[str, str]:
    """The project's environment as is (the pack is not installed in it)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HELIA_AOT_"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTHONPATH", None)
    return env
