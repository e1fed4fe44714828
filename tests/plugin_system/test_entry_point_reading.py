"""The plugin loader's reading of entry points and distribution names agrees with the library.

Entry points come from ``importlib.metadata.entry_points(group=...)`` (the first copy of a
distribution on ``sys.path`` wins). ``_name_and_version`` reads the two header lines of METADATA
instead of parsing the whole file with the email parser (a visible part of every conversion's
start-up, and the email parser stays out of a conversion): it must give exactly the names and
versions ``importlib.metadata`` gives, and the library's own parse for any file the header read
does not handle.
"""

from __future__ import annotations

import email
from importlib import metadata

import pytest
from helia_aot.errors import PluginError
from helia_aot.plugins import manager
from hypothesis import given, settings
from hypothesis import strategies as st

from .fakedist import make_distribution


def _library_identity(text: str) -> tuple[str | None, str | None]:
    fields = metadata._adapters.Message(email.message_from_string(text))  # what dist.metadata parses
    return fields["Name"], fields["Version"]


def _ep_rows(eps) -> list[tuple[str, str, str, str]]:
    return sorted((ep.name, ep.value, ep.group, str(ep.dist._path)) for ep in eps)


def test_the_first_copy_of_a_distribution_on_sys_path_wins(tmp_path, monkeypatch):
    """Two copies of one distribution: the library keeps the first on ``sys.path``, and so does the
    loader, even when only the shadowed copy declares a helia_aot entry point."""
    first = make_distribution(tmp_path / "a", "twin-pack", "1.0", "twin_a", "X = 1\n")
    second = make_distribution(tmp_path / "b", "twin-pack", "2.0", "twin_b", "X = 2\n")
    plain = make_distribution(tmp_path / "c", "plain-pack", "1.0", "plain_c", "X = 3\n")
    (next(plain.glob("*.dist-info")) / "entry_points.txt").write_text("[console_scripts]\nc = plain_c:X\n")
    shadow = make_distribution(tmp_path / "d", "plain-pack", "2.0", "plain_d", "X = 4\n")
    for root in (shadow, second, plain, first):  # first ends up first on sys.path
        monkeypatch.syspath_prepend(str(root))
    ours = _ep_rows(manager.discover_entry_points())
    assert ours == _ep_rows(metadata.entry_points(group="helia_aot"))
    assert [row[1] for row in ours if row[1].startswith(("twin", "plain"))] == ["twin_a"]


def test_every_installed_distribution_reads_as_the_library_parses_it():
    read = 0
    for dist in metadata.distributions():
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
        quick = manager._header_identity(text)
        if quick is not None:
            assert quick == (dist.metadata["Name"], dist.metadata["Version"]), dist._path
            read += 1
    assert read >= 2  # at least the two built-in packs are read without the email parser


_FIELD = st.sampled_from(["Name", "name", "Version", "VERSION", "Summary", "License", "Metadata-Version"])
_VALUE = st.text(alphabet=st.sampled_from("ab1.-_ :[]\t"), max_size=8)
_LINE = st.one_of(
    st.builds(lambda f, sep, v: f"{f}{sep}{v}", _FIELD, st.sampled_from([":", ": ", ":\t", " :"]), _VALUE),
    st.builds(lambda v: f" {v}", _VALUE),  # a continuation line
    st.sampled_from(["", "From x", "no colon here"]),
)


@settings(max_examples=25, deadline=None)
@given(lines=st.lists(_LINE, max_size=6), newline=st.sampled_from(["\n", "\r\n"]))
def test_header_read_agrees_with_the_email_parser_or_declines(lines, newline):
    text = newline.join(lines) + newline + "Body: text\n"
    quick = manager._header_identity(text)
    if quick is not None:
        assert quick == _library_identity(text)


def test_name_and_version_fall_back_to_the_librarys_parse(tmp_path, monkeypatch):
    root = make_distribution(tmp_path, "odd-pack", "3.1", "odd_pack", "X = 1\n")
    info = next(root.glob("*.dist-info"))
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: odd-pack\n  continued\nVersion: 3.1\n")
    monkeypatch.syspath_prepend(str(root))
    (dist,) = [d for d in metadata.distributions(path=[str(root)])]
    assert manager._name_and_version(dist) == (dist.metadata["Name"], "3.1")


def test_a_distribution_without_a_name_is_a_plugin_error(tmp_path):
    root = make_distribution(tmp_path, "nameless", "1.0", "nameless_mod", "X = 1\n")
    (next(root.glob("*.dist-info")) / "METADATA").write_text("Metadata-Version: 2.1\nVersion: 1.0\n")
    (dist,) = list(metadata.distributions(path=[str(root)]))
    with pytest.raises(PluginError, match="has no Name in its metadata"):
        manager._name_and_version(dist)


def test_a_nameless_distribution_found_through_importlib_metadata_is_a_plugin_error(tmp_path):
    """The backport (imported by dask, mkdocs and others, after which it also answers the
    standard library's discovery) raises KeyError for a missing header: still a PluginError."""
    import importlib_metadata

    root = make_distribution(tmp_path, "nameless", "1.0", "nameless_mod", "X = 1\n")
    (next(root.glob("*.dist-info")) / "METADATA").write_text("Metadata-Version: 2.1\nVersion: 1.0\n")
    (dist,) = list(importlib_metadata.distributions(path=[str(root)]))
    with pytest.raises(PluginError, match="has no Name in its metadata"):
        manager._name_and_version(dist)
