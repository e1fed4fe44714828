"""Output safety: the destination is the previous state or the complete new module, never a mix.

Failures are injected where the export writes (a full disk as ``OSError(ENOSPC)``, Ctrl-C as
``KeyboardInterrupt``, a failing rename) and the destination is compared with a snapshot taken
before. Most cases call :func:`export_module` on a small prebuilt tree, which is what a conversion
hands it; one runs a whole conversion to show the stage wiring keeps the guarantee.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import signal
import zipfile
from pathlib import Path
from types import SimpleNamespace

import helia_aot.pipeline.export as export
import pytest
from helia_aot import AotConverter, ConvertArgs
from helia_aot.errors import ForeignOutputError, InvalidConfigError, OutputExistsError, PluginError

MODEL = Path(__file__).resolve().parents[1] / "data" / "models" / "relu_int8.tflite"


def make_tree(root: Path, tag: str) -> Path:
    """A stand-in for an emitted module: a few files in nested folders, contents tagged."""
    for rel in ("includes-api/aot_model.h", "src/aot_model.c", "src/kernels/aot_hk_common.h", "README.md"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{tag}: {rel}\n")
    return root


def snapshot(path: Path) -> dict[str, bytes] | bytes | None:
    """Everything at ``path``: None when absent, the bytes of a file, or every file of a tree."""
    if not os.path.lexists(path):
        return None
    if path.is_file():
        return path.read_bytes()
    return {
        p.relative_to(path).as_posix(): p.read_bytes() if p.is_file() else b"<dir>"
        for p in sorted(path.rglob("*"))
    }


def config(path: Path, name: str = "module", force: bool = False) -> SimpleNamespace:
    return SimpleNamespace(module=SimpleNamespace(path=path, name=name), force=force)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) if folder.exists() else []


@pytest.fixture
def built(tmp_path):
    return make_tree(tmp_path / "work" / "module", "new")


@pytest.fixture(params=["dir", "zip"])
def kind(request):
    return request.param


def destination(tmp_path: Path, kind: str) -> tuple[Path, SimpleNamespace]:
    out = tmp_path / "out"
    if kind == "zip":
        return out / "module.zip", config(out / "module.zip")
    return out / "module", config(out)


def install_previous(dest: Path, built: Path, cfg: SimpleNamespace) -> dict | bytes:
    old = make_tree(built.parent / "old", "old")
    export.export_module(old, cfg)
    cfg.force = True
    return snapshot(dest)


def full_disk_after(monkeypatch, calls: int) -> None:
    """Make the export's file writes fail with ENOSPC after ``calls`` successful ones."""
    count = {"n": 0}

    def failing(real):
        def wrapper(*args, **kwargs):
            count["n"] += 1
            if count["n"] > calls:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(export.shutil, "copyfile", failing(shutil.copyfile))
    monkeypatch.setattr(zipfile.ZipFile, "writestr", failing(zipfile.ZipFile.writestr))


def test_export_writes_the_complete_module_and_leaves_no_staging(tmp_path, built, kind):
    dest, cfg = destination(tmp_path, kind)
    assert export.export_module(built, cfg) == dest
    if kind == "zip":
        with zipfile.ZipFile(dest) as archive:
            assert archive.read("module/src/aot_model.c") == b"new: src/aot_model.c\n"
    else:
        # The copy is the built tree plus the marker that lets force replace it later.
        copied = snapshot(dest)
        marker = copied.pop(export.MARKER_NAME).decode().splitlines()
        assert copied == snapshot(built)
        assert marker == [export.MARKER_HEADER, *sorted(snapshot(built), key=lambda rel: rel.split("/"))]
    assert leftovers(dest.parent) == []


@pytest.mark.parametrize("same_device", [True, False], ids=["renamed", "copied"])
def test_a_moved_export_writes_what_a_copy_writes(tmp_path, built, same_device, monkeypatch):
    """``move``: a throwaway tree is renamed into place, or copied when it is on another device."""
    dest, cfg = destination(tmp_path, "dir")
    expected = snapshot(make_tree(tmp_path / "twin" / "module", "new"))
    renames = []
    real_rename = os.rename

    def rename(src, dst):
        renames.append(Path(src))
        if not same_device:
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
        return real_rename(src, dst)

    monkeypatch.setattr(export.os, "rename", rename)
    install_previous(dest, built, cfg)
    renames.clear()
    assert export.export_module(built, cfg, move=True) == dest
    copied = snapshot(dest)
    marker = copied.pop(export.MARKER_NAME).decode().splitlines()
    assert copied == expected
    assert marker == [export.MARKER_HEADER, *sorted(expected, key=lambda rel: rel.split("/"))]
    assert renames == [built] and built.exists() is not same_device
    assert leftovers(dest.parent) == []


@pytest.mark.parametrize("previous", [False, True], ids=["absent", "force"])
def test_full_disk_leaves_the_destination_as_it_was(tmp_path, built, kind, previous, monkeypatch):
    dest, cfg = destination(tmp_path, kind)
    before = install_previous(dest, built, cfg) if previous else None
    full_disk_after(monkeypatch, calls=2)
    with pytest.raises(InvalidConfigError, match="No space left on device") as info:
        export.export_module(built, cfg)
    assert info.value.exit_code == 2 and info.value.details["errno"] == errno.ENOSPC
    assert isinstance(info.value.__cause__, OSError)
    assert snapshot(dest) == before
    assert leftovers(dest.parent) == []
    if not previous:
        assert not dest.parent.exists(), "the folders this export created are removed again"


@pytest.mark.parametrize("previous", [False, True], ids=["absent", "force"])
def test_ctrl_c_while_writing_leaves_the_destination_as_it_was(tmp_path, built, kind, previous, monkeypatch):
    dest, cfg = destination(tmp_path, kind)
    before = install_previous(dest, built, cfg) if previous else None

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(export.shutil, "copyfile", interrupted)
    monkeypatch.setattr(zipfile.ZipFile, "writestr", interrupted)
    with pytest.raises(KeyboardInterrupt):
        export.export_module(built, cfg)
    assert snapshot(dest) == before
    assert leftovers(dest.parent) == []


def test_a_failed_rename_puts_the_previous_module_back(tmp_path, built, kind, monkeypatch):
    dest, cfg = destination(tmp_path, kind)
    before = install_previous(dest, built, cfg)
    real_replace = os.replace
    calls = []

    def replace(src, dst):
        calls.append((Path(src).name, Path(dst).name))
        if len(calls) == 2:  # the old module is aside; moving the new one in fails
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
        return real_replace(src, dst)

    monkeypatch.setattr(export.os, "replace", replace)
    with pytest.raises(InvalidConfigError, match="cannot write the module"):
        export.export_module(built, cfg)
    assert calls[0][1] == "previous" and calls[2] == ("previous", dest.name)
    assert snapshot(dest) == before
    assert leftovers(dest.parent) == []


@pytest.fixture
def default_sigint():
    """Python's own SIGINT handler (raising KeyboardInterrupt), whatever an earlier test installed."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_during_the_swap_is_held_until_the_new_module_is_in_place(
    tmp_path, built, monkeypatch, default_sigint
):
    dest, cfg = destination(tmp_path, "dir")
    install_previous(dest, built, cfg)
    real_replace = os.replace

    def replace(src, dst):
        signal.raise_signal(signal.SIGINT)  # Ctrl-C between moving the old module and the new one
        return real_replace(src, dst)

    monkeypatch.setattr(export.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        export.export_module(built, cfg)
    after = snapshot(dest)
    assert after.pop(export.MARKER_NAME) and after == snapshot(built)
    assert leftovers(dest.parent) == []


def test_existing_module_needs_force(tmp_path, built, kind):
    dest, cfg = destination(tmp_path, kind)
    export.export_module(built, cfg)
    before = snapshot(dest)
    with pytest.raises(OutputExistsError):
        export.export_module(make_tree(tmp_path / "other", "other"), cfg)
    assert snapshot(dest) == before


def _user_folder(dest: Path) -> None:
    dest.mkdir(parents=True)
    (dest / "thesis.tex").write_text("years of work\n")


def _user_file_in_module(dest: Path) -> None:
    (dest / "src" / "my_notes.txt").write_text("mine\n")


def _marker_removed(dest: Path) -> None:
    (dest / export.MARKER_NAME).unlink()


def _foreign_archive(dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w") as archive:
        archive.writestr("photos/cat.jpg", b"not a module")


def _not_an_archive(dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(b"a user's file that merely ends in .zip")


@pytest.mark.parametrize(
    ("kind", "ours_first", "spoil", "reason"),
    [
        ("dir", False, _user_folder, "no .helia-aot marker"),
        ("dir", True, _user_file_in_module, "did not write (src/my_notes.txt)"),
        ("dir", True, _marker_removed, "no .helia-aot marker"),
        ("zip", False, _foreign_archive, "lacks helia-aot's zip comment"),
        ("zip", False, _not_an_archive, "is not an archive helia-aot wrote"),
    ],
    ids=["user-folder", "user-file-in-module", "marker-removed", "foreign-zip", "not-a-zip"],
)
def test_force_refuses_what_helia_aot_did_not_write(tmp_path, built, kind, ours_first, spoil, reason):
    """force never replaces a user's folder or archive, nor a module a user put own files into."""
    dest, cfg = destination(tmp_path, kind)
    if ours_first:
        export.export_module(make_tree(tmp_path / "old", "old"), cfg)
    spoil(dest)
    before = snapshot(dest)
    cfg.force = True
    with pytest.raises(ForeignOutputError, match=re.escape(reason)) as info:
        export.export_module(built, cfg)
    assert isinstance(info.value, OutputExistsError) and info.value.exit_code == 2
    assert (
        str(dest) in info.value.message and "force replaces only a module helia-aot wrote" in info.value.hint
    )
    assert snapshot(dest) == before
    assert leftovers(dest.parent) == []


def test_force_refuses_a_folder_it_cannot_read(tmp_path, built, monkeypatch):
    """A subfolder that cannot be listed might hold anything: refused, not taken for empty."""
    dest, cfg = destination(tmp_path, "dir")
    export.export_module(make_tree(tmp_path / "old", "old"), cfg)
    before = snapshot(dest)

    def walk(top, onerror=None, **kwargs):  # what os.walk does on a folder without read permission
        onerror(PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(Path(top) / "src")))
        return iter(())

    monkeypatch.setattr(export.os, "walk", walk)
    cfg.force = True
    with pytest.raises(ForeignOutputError, match="src, which cannot be read"):
        export.export_module(built, cfg)
    monkeypatch.undo()
    assert snapshot(dest) == before


def test_cli_force_onto_a_users_folder_exits_2_and_leaves_it(tmp_path):
    from helia_aot.cli.app import app
    from typer.testing import CliRunner

    mine = tmp_path / "out" / "relu"
    mine.mkdir(parents=True)
    (mine / "notes.txt").write_text("mine\n")
    args = ["convert", "--model.path", str(MODEL), "--module.path", str(tmp_path / "out")]
    result = CliRunner().invoke(app, [*args, "--module.name", "relu", "--force", "--verbose", "0"])
    assert result.exit_code == 2, result.output
    assert "was not written by helia-aot" in " ".join(result.stderr.split())
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


def test_force_replaces_an_empty_folder_and_its_own_module(tmp_path, built, kind):
    dest, cfg = destination(tmp_path, kind)
    cfg.force = True
    if kind == "dir":
        dest.mkdir(parents=True)  # nothing in it to lose
        export.export_module(make_tree(tmp_path / "old", "old"), cfg)
    else:
        export.export_module(make_tree(tmp_path / "old", "old"), cfg)
    export.export_module(built, cfg)
    if kind == "zip":
        with zipfile.ZipFile(dest) as archive:
            assert archive.comment == export.ARCHIVE_COMMENT
            assert archive.read("module/README.md") == b"new: README.md\n"
    else:
        assert (dest / "README.md").read_text() == "new: README.md\n"


def test_ctrl_c_during_a_conversion_leaves_nothing_behind(tmp_path, monkeypatch):
    out = tmp_path / "out"
    cfg = ConvertArgs.model_validate(
        {"model": {"path": str(MODEL)}, "module": {"path": str(out), "name": "relu"}}
    )
    AotConverter(cfg).convert()
    before = snapshot(out / "relu")
    cfg.force = True

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    # The conversion renames its throwaway tree into the staging folder (or copies it across
    # devices): Ctrl-C at either way of writing the new module.
    monkeypatch.setattr(export.shutil, "copyfile", interrupted)
    monkeypatch.setattr(export.os, "rename", interrupted)
    with pytest.raises(KeyboardInterrupt):
        AotConverter(cfg).convert()
    assert snapshot(out / "relu") == before
    assert sorted(p.name for p in out.iterdir()) == ["relu"]


def test_archives_hold_only_relative_member_names(tmp_path, built):
    dest, cfg = destination(tmp_path, "zip")
    export.export_module(built, cfg)
    with zipfile.ZipFile(dest) as archive:
        names = archive.namelist()
        infos = archive.infolist()
    assert names == sorted(names, key=lambda n: n.rstrip("/").split("/")) and len(names) == 7
    for name in names:
        assert not name.startswith("/") and ".." not in name.split("/") and "\\" not in name
        assert name.split("/")[0] == "module"
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)} and {i.create_system for i in infos} == {3}
    # Fixed times, modes and order: the same tree gives the same bytes.
    again = tmp_path / "again.zip"
    export.write_archive(built, again, "module")
    assert again.read_bytes() == dest.read_bytes()


def test_a_link_in_the_module_is_refused_and_never_followed(tmp_path, built, kind):
    secret = tmp_path / "secret.txt"
    secret.write_text("outside the module")
    (built / "src" / "leak.txt").symlink_to(secret)
    dest, cfg = destination(tmp_path, kind)
    with pytest.raises(PluginError, match="leak.txt"):
        export.export_module(built, cfg)
    assert not os.path.lexists(dest) and leftovers(dest.parent) == []


def test_a_parent_another_conversion_creates_first_is_used_and_not_claimed(tmp_path, monkeypatch):
    # A sweep's conversions may find the same missing parent and create it at the same moment:
    # the one that loses the race uses the folder and does not count it as its own (a failure
    # afterwards would otherwise remove a folder the other module lives in).
    shared = tmp_path / "sweep_out"
    real_mkdir = Path.mkdir

    def racing_mkdir(self, *args, **kwargs):
        if self == shared:
            real_mkdir(self)  # the other conversion got there first
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", racing_mkdir)
    created = export._make_parents(shared / "point-1")
    assert created == [shared / "point-1"]
    assert shared.is_dir()
