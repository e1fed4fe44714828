"""helia-aot plugin entry point: contributes the Apollo boards to the platform registry."""

from __future__ import annotations

from helia_aot.platforms import SocPlatform
from helia_aot.plugins import hookimpl

from helia_aot_platforms_apollo.platforms import APOLLO_PLATFORMS


@hookimpl
def helia_aot_platforms() -> list[SocPlatform]:
    """Every Apollo evaluation board (see ``helia_aot_platforms_apollo.platforms``)."""
    return list(APOLLO_PLATFORMS)
