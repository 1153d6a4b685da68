"""Rebuilding the embedded model's GGUF from its part packages: order, checksum, clear errors."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from codur.llm import local


@pytest.fixture
def fake_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """Two importable part packages holding three chunk files, like the real ones."""
    chunks = {"codur_fakepart1": {"part01.bin": b"GGUF-head-", "part02.bin": b"middle-"},
              "codur_fakepart2": {"part03.bin": b"tail"}}
    for package, files in chunks.items():
        data = tmp_path / "site" / package / "data"
        data.mkdir(parents=True)
        (data.parent / "__init__.py").write_text("")
        for name, content in files.items():
            (data / name).write_bytes(content)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(local, "PART_MODULES", list(chunks))
    whole = b"GGUF-head-middle-tail"
    monkeypatch.setattr(local, "GGUF_SHA256", hashlib.sha256(whole).hexdigest())
    return whole


def test_parts_are_concatenated_in_order_and_verified(fake_parts: bytes, tmp_path: Path):
    path = local.ensure_gguf(tmp_path / "cache")
    assert path.read_bytes() == fake_parts
    stamp = path.with_name(path.name + ".sha256").read_text()
    assert stamp.startswith(local.GGUF_SHA256)
    assert local.ensure_gguf(tmp_path / "cache") == path  # second call: no rebuild needed


def test_checksum_mismatch_is_refused_and_leaves_nothing(fake_parts: bytes, tmp_path: Path, monkeypatch):
    monkeypatch.setattr(local, "GGUF_SHA256", "0" * 64)
    with pytest.raises(local.LocalModelUnavailable, match="checksum mismatch"):
        local.ensure_gguf(tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


def test_missing_part_package_names_it(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(local, "PART_MODULES", ["codur_no_such_part7"])
    with pytest.raises(local.LocalModelUnavailable, match=r"codur-no-such-part7.*pip install 'codur\[local\]'"):
        local.ensure_gguf(tmp_path / "cache")


def test_missing_xllamacpp_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "xllamacpp", None)
    with pytest.raises(local.LocalModelUnavailable, match="xllamacpp"):
        local.LocalModelServer().start()
