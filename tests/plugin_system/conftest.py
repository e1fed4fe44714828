"""Fixtures of the plugin-system suite: plugins-example installed once per session."""

from __future__ import annotations

import pytest

from .example_pack import PACK_SOURCE, InstalledPack, install_copy


@pytest.fixture(scope="session")
def example_pack(tmp_path_factory) -> InstalledPack:
    """plugins-example, copied and pip-installed into a throwaway target."""
    return install_copy(PACK_SOURCE, tmp_path_factory.mktemp("example_pack"))
