"""The plugin loader reads entry points and distribution names with ``importlib.metadata``.

A hand-written reading of ``entry_points.txt`` and of METADATA's header lines stood here for a
start-up gain, which measured 1-2 ms of CPU a conversion (bench/handwritten_ledger.py, the ledger
in docs/architecture.md) and was removed. What stays pinned is the behaviour: the first copy of a
distribution on ``sys.path`` wins, names and versions are the library's (one parse per
distribution), and a distribution without a name is a PluginError.
"""

from __future__ import annotations

from importlib import metadata

import pytest
from helia_aot.errors import PluginError
from helia_aot.plugins import manager

from .fakedist import make_distribution


def _ep_rows(eps) -> list[tuple[str, str, str, str]]:
    return sorted((ep.name, ep.value, ep.group, str(ep.dist._path)) for ep in eps)


def test_the_first_copy_of_a_distribution_on_sys_path_wins(tmp_path, monkeypatch):
    """Two copies of one distribution: the loader keeps the first on ``sys.path``, even when only
    the shadowed copy declares a helia_aot entry point."""
    first = make_distribution(tmp_path / "a", "twin-pack", "1.0", "twin_a", "X = 1\n")
    second = make_distribution(tmp_path / "b", "twin-pack", "2.0", "twin_b", "X = 2\n")
    plain = make_distribution(tmp_path / "c", "plain-pack", "1.0", "plain_c", "X = 3\n")
    (next(plain.glob("*.dist-info")) / "entry_points.txt").write_text("[console_scripts]\nc = plain_c:X\n")
    shadow = make_distribution(tmp_path / "d", "plain-pack", "2.0", "plain_d", "X = 4\n")
    for root in (shadow, second, plain, first):  # first ends up first on sys.path
        monkeypatch.syspath_prepend(str(root))
    ours = _ep_rows(manager.discover_entry_points())
    assert [row[1] for row in ours if row[1].startswith(("twin", "plain"))] == ["twin_a"]


def test_name_and_version_are_the_librarys_read_once(tmp_path, monkeypatch):
    root = make_distribution(tmp_path, "odd-pack", "3.1", "odd_pack", "X = 1\n")
    info = next(root.glob("*.dist-info"))
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: odd-pack\n  continued\nVersion: 3.1\n")
    (dist,) = list(metadata.distributions(path=[str(root)]))
    first = manager._name_and_version(dist)
    assert first == (dist.metadata["Name"], "3.1")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: renamed\nVersion: 9\n")
    assert dist.metadata["Name"] == "renamed"
    assert manager._name_and_version(dist) == first  # read once per distribution


def test_a_distribution_without_a_name_is_a_plugin_error(tmp_path):
    root = make_distribution(tmp_path, "nameless", "1.0", "nameless_mod", "X = 1\n")
    (next(root.glob("*.dist-info")) / "METADATA").write_text("Metadata-Version: 2.1\nVersion: 1.0\n")
    (dist,) = list(metadata.distributions(path=[str(root)]))
    with pytest.raises(PluginError, match="has no Name in its metadata"):
        manager._name_and_version(dist)
