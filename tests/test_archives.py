"""Archives from someone else: .npz members and .keras archives are capped from their declared sizes and read as
bounded streams; a bomb, a lying size or a huge member is refused with an error naming the file and the limit."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train import archives
from tfnet_train.conformance import case as case_module
from tfnet_train.conformance.trace_files import read_step_npz


def npz(path: Path, **arrays: np.ndarray) -> Path:
    np.savez_compressed(path, **arrays)
    return path


def test_arrays_round_trip(tmp_path: Path) -> None:
    a, b = np.arange(12, dtype="float32").reshape(3, 4), np.asfortranarray(np.arange(6).reshape(2, 3))
    got = archives.load_npz(npz(tmp_path / "a.npz", a=a, b=b, empty=np.zeros((0, 3))))
    np.testing.assert_array_equal(got["a"], a)
    np.testing.assert_array_equal(got["b"], b)
    assert got["empty"].shape == (0, 3)


def test_a_member_past_the_cap_is_refused_before_decompressing(tmp_path: Path) -> None:
    path = npz(tmp_path / "bomb.npz", zeros=np.zeros(4 << 20, "float32"))  # 16 MiB of zeros, a few KiB on disk
    assert path.stat().st_size < 100_000
    with pytest.raises(ValueError, match=r"bomb\.npz.*'zeros\.npy'.*past the limit of 1\.0 MiB \(1048576 bytes\)"):
        archives.load_npz(path, max_bytes=1 << 20)


def test_case_and_trace_readers_use_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archives, "MAX_NPZ_BYTES", 1 << 20)
    traces = npz(tmp_path / "t.npz", **{"step0/loss": np.zeros(4 << 20, "float32")})
    with pytest.raises(ValueError, match=r"trace file .*t\.npz.*past the limit of 1\.0 MiB"):
        read_step_npz(traces)
    suite = Path(case_module.__file__).with_name("suite")
    source = next(suite.rglob("*.json"))
    (tmp_path / source.name).write_bytes(source.read_bytes())
    npz(tmp_path / source.with_suffix(".npz").name, x=np.zeros(4 << 20, "float32"))
    with pytest.raises(case_module.CaseError, match=r"past the limit of 1\.0 MiB"):
        case_module.load(tmp_path / source.name)


def _lie_about_size(data: bytes, size: int) -> bytes:
    """The archive with every member's declared uncompressed size replaced by ``size``."""
    out = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = out.find(signature)
        while at >= 0:
            out[at + offset:at + offset + 4] = struct.pack("<I", size)
            at = out.find(signature, at + 4)
    return bytes(out)


def test_a_member_that_decompresses_past_its_declared_size_is_refused(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, zeros=np.zeros(1 << 22, "float32"))
    path = tmp_path / "liar.npz"
    path.write_bytes(_lie_about_size(buffer.getvalue(), 4096))
    with pytest.raises(ValueError, match=r"liar\.npz.*'zeros\.npy'"):
        archives.load_npz(path)


def npz_with_header(path: Path, header: bytes, data_bytes: int) -> Path:
    """An archive whose one member, x.npy, is a version 1.0 header as given and ``data_bytes`` zero bytes."""
    member = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + b"\0" * data_bytes
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("x.npy", member)
    return path


def test_a_header_promising_more_than_the_member_holds_is_refused(tmp_path: Path) -> None:
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }"
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    path = npz_with_header(tmp_path / "huge.npz", header, 16)
    with pytest.raises(ValueError, match=r"huge\.npz.*'x\.npy'.*shape \(1000000000000,\).*more than the member"):
        archives.load_npz(path)


def test_a_header_numpy_cannot_tokenize_is_a_clear_error(tmp_path: Path) -> None:
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (3,\n"  # an unclosed bracket
    path = npz_with_header(tmp_path / "bad.npz", header, 12)
    with pytest.raises(ValueError, match=r"bad\.npz.*'x\.npy'.*not a \.npy array"):
        archives.load_npz(path)


@pytest.mark.parametrize("member, match", [
    ("x.npy", r"object arrays"), ("x.txt", r"not a \.npy array"),
])
def test_pickles_and_other_members_are_refused(tmp_path: Path, member: str, match: str) -> None:
    path = tmp_path / "p.npz"
    with zipfile.ZipFile(path, "w") as zf:
        with zf.open(member, "w") as fh:
            np.lib.format.write_array(fh, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match=match):
        archives.load_npz(path)


def saved_model(path: Path) -> Path:
    keras.utils.set_random_seed(0)
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    m.compile("sgd", "mse")
    m.save(path)
    return path


def test_keras_archives_past_the_cap_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = saved_model(tmp_path / "m.keras")
    monkeypatch.setattr(archives, "MAX_KERAS_BYTES", 1024)
    with pytest.raises(ValueError, match=r"m\.keras.*past the limit of 0\.0 MiB \(1024 bytes\)"):
        tfnet_train.load_model(path)
    monkeypatch.setattr(archives, "MAX_KERAS_BYTES", 1 << 30)
    monkeypatch.setattr(archives, "MAX_KERAS_CONFIG_BYTES", 100)
    with pytest.raises(ValueError, match=r"m\.keras.*'config\.json' of \d+ bytes exceeds the limit"):
        tfnet_train.load_model(path)


def test_keras_archive_members_are_streamed_not_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = saved_model(tmp_path / "m.keras")
    real_read = zipfile.ZipFile.read

    def read(self: zipfile.ZipFile, name: object, pwd: bytes | None = None) -> bytes:
        member = name.filename if isinstance(name, zipfile.ZipInfo) else name
        assert member == "config.json", f"{member} read whole"
        return real_read(self, name, pwd)

    monkeypatch.setattr(zipfile.ZipFile, "read", read)
    model = tfnet_train.load_model(path)
    assert isinstance(model, tfnet_train.Sequential)
