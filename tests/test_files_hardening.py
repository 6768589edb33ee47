"""Files: the mode a plain open gives, directory syncs that report I/O failures, .h5 loads that write nothing,
HDF5 probes that say what failed."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import h5py
import keras
import numpy as np
import pytest

import tfnet_train
from tfnet_train import files, optimizers
from tfnet_train.engine import save

X = np.random.default_rng(3).normal(size=(16, 4)).astype("float32")
Y = np.random.default_rng(4).integers(0, 3, 16)


def compiled() -> keras.Model:
    m = tfnet_train.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    m.compile(optimizers.Adam(0.01), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return m


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


def test_saved_files_get_the_mode_the_umask_gives(tmp_path: Path, umask_027: None) -> None:
    m = compiled()
    m.save(tmp_path / "m.keras")
    m.save_weights(tmp_path / "m.weights.h5")
    files.write_text(tmp_path / "t.json", "{}")
    for name in ("m.keras", "m.weights.h5", "t.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o640, name


def test_overwriting_keeps_the_old_files_mode(tmp_path: Path) -> None:
    target = tmp_path / "t.json"
    target.write_text("old")
    target.chmod(0o604)
    files.write_text(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o604


@pytest.mark.parametrize("code", [errno.EIO, errno.ENOSPC])
def test_fsync_directory_raises_io_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    def failing(fd: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(files.os, "fsync", failing)
    with pytest.raises(OSError) as caught:
        files.fsync_directory(tmp_path)
    assert caught.value.errno == code


def test_fsync_directory_skips_file_systems_that_cannot_sync_folders(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def unsupported(fd: int) -> None:
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))

    monkeypatch.setattr(files.os, "fsync", unsupported)
    files.fsync_directory(tmp_path)


def test_h5_load_writes_nothing_beside_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = compiled()
    m.fit(X, Y, verbose=0)
    m.save_weights(tmp_path / "model.h5")
    # what a crashed earlier load with the same pid left, and a folder that refuses new names (read-only)
    (tmp_path / f".model.h5.{os.getpid()}.weights.h5").write_bytes(b"stale")
    monkeypatch.setattr(os, "link", lambda *a, **k: (_ for _ in ()).throw(PermissionError(errno.EROFS, "ro")))
    before = sorted(p.name for p in tmp_path.iterdir())
    fresh = compiled()
    fresh.load_weights(tmp_path / "model.h5")
    for a, b in zip(fresh.get_weights(), m.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_an_hdf5_file_that_cannot_be_opened_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled().save_weights(tmp_path / "model.h5")

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError("Unable to synchronously open file (file locking)")

    monkeypatch.setattr(save.h5py, "File", broken)
    with pytest.raises(OSError, match=r"model\.h5.*is an HDF5 file that h5py could not open.*file locking"):
        compiled().load_weights(tmp_path / "model.h5")


def test_a_file_that_is_not_hdf5_is_still_told_apart(tmp_path: Path) -> None:
    (tmp_path / "x.h5").write_bytes(b"not hdf5 at all")
    assert save._is_weights_h5(tmp_path / "x.h5") is False
    with h5py.File(tmp_path / "y.h5", "w") as f:
        f["other"] = 1
    assert save._is_weights_h5(tmp_path / "y.h5") is False


def test_weights_under_any_name_are_written_by_the_face_path_and_read_by_content(tmp_path: Path) -> None:
    m = compiled()
    m.fit(X, Y, verbose=0)
    target = tmp_path / "Model_0_g.weights"  # TF.NET's MnistGAN names its HDF5 weights so
    with pytest.raises(ValueError, match=r"filepath must end in \.weights\.h5.*Model_0_g\.weights"):
        m.save_weights(target)  # Keras's rule on the Python API
    assert not target.exists()
    m._save_weights_hdf5(target)
    assert h5py.is_hdf5(str(target))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Model_0_g.weights"]
    fresh = compiled()
    fresh.load_weights(target)
    for a, b in zip(fresh.get_weights(), m.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_non_weights_file_under_another_name_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    junk = tmp_path / "junk.weights"
    junk.write_bytes(b"not hdf5 at all")
    m = compiled()
    m.fit(X, Y, verbose=0)
    before = m.get_weights()
    with pytest.raises(ValueError, match="junk.weights"):
        m.load_weights(junk)
    for a, b in zip(m.get_weights(), before, strict=True):
        np.testing.assert_array_equal(a, b)
