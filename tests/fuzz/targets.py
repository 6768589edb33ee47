"""Fuzz targets: one per reader of untrusted bytes. Each takes bytes and either reads them or is refused with the
reader's own typed error; anything else (another exception, a crash, a hang) is a finding.

- ``case``: a case JSON document and its .npz (``conformance.case.load``), the input being
  ``<4-byte little-endian JSON length><JSON bytes><npz bytes>``;
- ``trace``: a trace file (``conformance.trace_files.read_step_npz``);
- ``keras``: a .keras archive as the engine opens it (``engine.load._as_engine_file``: caps, config.json, the
  streamed copy), then the archive Keras would read;
- ``backup``: BackupAndRestore's metadata (``callbacks.backup_and_restore.parse_metadata``);
- ``weights``: an HDF5 weights file (``Model.load_weights`` into a small compiled model: the size checks of
  ``engine.h5_checks``, then Keras's reader), which must leave every variable as it was when it is refused;
- ``keras_h5``: a whole-model ``.h5`` file (``load_model``, ``safe_mode`` on).
"""

from __future__ import annotations

import io
import os
import struct
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).with_name("corpus")

_FOLDER = Path(tempfile.mkdtemp(prefix="tfnet_fuzz_"))


def _write(name: str, data: bytes) -> Path:
    path = _FOLDER / name
    path.write_bytes(data)
    return path


def case(data: bytes) -> None:
    from tfnet_train.conformance.case import CaseError, load

    if len(data) < 4:
        return
    (length,) = struct.unpack("<I", data[:4])
    document, arrays = data[4:4 + length], data[4 + length:]
    _write("fuzzcase.json", document)
    _write("fuzzcase.npz", arrays)
    try:
        load(_FOLDER / "fuzzcase.json")
    except CaseError:
        pass


def trace(data: bytes) -> None:
    from tfnet_train.conformance.trace_files import read_step_npz

    try:
        read_step_npz(_write("trace.npz", data))
    except ValueError:
        pass


def keras(data: bytes) -> None:
    from tfnet_train.engine.load import _as_engine_file

    path = _write("model.keras", data)
    try:
        with _as_engine_file(path) as opened, zipfile.ZipFile(opened) as archive:
            archive.testzip()
    except (ValueError, zipfile.BadZipFile, OSError, EOFError, NotImplementedError):
        pass


def backup(data: bytes) -> None:
    from tfnet_train.callbacks.backup_and_restore import parse_metadata

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    try:
        parse_metadata(text, "training_metadata.json")
    except ValueError:
        pass


_MODEL: list[Any] = []


def _model() -> Any:
    """The model ``weights`` loads into, built once per process: Dense(3) and Dense(2) on 4 inputs, compiled with
    Adam and its slots built (as ``load_weights`` builds them), fixed weights, fixed names."""
    if not _MODEL:
        import keras

        import tfnet_train
        from tfnet_train import optimizers

        model = tfnet_train.Sequential([keras.Input((4,), name="input"), keras.layers.Dense(3, name="dense"),
                                        keras.layers.Dense(2, name="dense_1")], name="fuzz")
        model.compile(optimizers.Adam(0.01, name="adam"), "mse")
        model.optimizer.build(model.trainable_variables)
        model.set_weights([np.linspace(-1, 1, np.prod(w.shape), dtype="float32").reshape(w.shape)
                           for w in model.get_weights()])
        _MODEL.append(model)
    return _MODEL[0]


def _values(model: Any) -> list[np.ndarray]:
    return [np.array(v.numpy(), copy=True) for v in [*model.weights, *model.optimizer.variables]]


def weights(data: bytes) -> None:
    """Refused: ValueError (the size checks, Keras's own checks and mismatches, a damaged file) and OSError (h5py's
    error for a file it cannot open). KeyError is not: Keras gathers a missing variable's KeyError into its
    ValueError, and ``load_weights`` names the file in a ValueError for h5py's KeyError (an object libhdf5 cannot
    open) and Keras's (a missing group). A refused load that changed a weight or optimizer variable is a finding
    (AssertionError); a load that succeeds is undone so that every input starts from the same model."""
    model = _model()
    path = _write("fuzz.weights.h5", data)
    before = _values(model)
    try:
        model.load_weights(path)
    except (ValueError, OSError):
        after = _values(model)
        if not all(np.array_equal(a, b, equal_nan=True) and a.dtype == b.dtype for a, b in zip(before, after)):
            raise AssertionError("a refused load_weights changed the model's variables") from None
        return
    for variable, value in zip([*model.weights, *model.optimizer.variables], before):
        variable.assign(value)


def keras_h5(data: bytes) -> None:
    """Refused: ValueError and OSError, as for ``weights`` (a model_config Keras cannot build is a ValueError too),
    and Keras's own TypeError for a class it cannot locate (what a file naming a class the caller did not pass
    gets, as with Keras's load_model)."""
    from tfnet_train import load_model

    try:
        load_model(_write("fuzz.h5", data))
    except (ValueError, OSError):
        pass
    except TypeError as error:
        if not str(error).startswith("Could not locate"):
            raise


TARGETS: dict[str, Callable[[bytes], None]] = {"case": case, "trace": trace, "keras": keras, "backup": backup,
                                               "weights": weights, "keras_h5": keras_h5}


def every(data: bytes) -> None:
    """All targets in one run: the first byte picks the target (the bounded run in the test suite)."""
    if not data:
        return
    names = sorted(TARGETS)
    TARGETS[names[data[0] % len(names)]](data[1:])


# ----- the seed corpus --------------------------------------------------------------------------------------------

def _npz(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _saved(save: Callable[[Path], None], name: str) -> bytes:
    path = _FOLDER / name
    save(path)
    try:
        return path.read_bytes()
    finally:
        path.unlink()


def seeds() -> dict[str, list[bytes]]:
    """Valid inputs per target, small: a suite case, a two-step trace, a saved Keras model's archive layout, the
    metadata BackupAndRestore writes, the ``weights`` model's ``save_weights`` and ``save("x.h5")`` files (about
    20 KiB each, nearly all HDF5's own group structure, which a smaller model would not shrink: fuzz them with
    ``-max_len=32768``)."""
    suite = ROOT / "src" / "tfnet_train" / "conformance" / "suite" / "default"
    json_path = min(suite.glob("*.json"), key=lambda p: p.with_suffix(".npz").stat().st_size)
    document = json_path.read_bytes().replace(json_path.stem.encode(), b"fuzzcase")
    case_seed = struct.pack("<I", len(document)) + document + json_path.with_suffix(".npz").read_bytes()
    trace_seed = _npz(**{"step0/loss": np.float32(1.5), "step0/weights/0": np.ones((2, 3), "float32"),
                         "step1/loss": np.float32(1.0), "step1/weights/0": np.zeros((2, 3), "float32")})
    keras_buffer = io.BytesIO()
    with zipfile.ZipFile(keras_buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in (("metadata.json", b'{"keras_version": "3.15.1"}'),
                              ("config.json", b'{"module": "keras", "class_name": "Sequential", "config": {}}'),
                              ("model.weights.h5", b"\x89HDF\r\n\x1a\n" + bytes(64))):
            archive.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), content,
                             compress_type=zipfile.ZIP_DEFLATED)
    backup_seed = (b'{"epoch": 1, "batch": -1, "steps_done": 0, "generation": 2, '
                   b'"weights": "backup-000002.weights.h5"}')
    model = _model()
    return {"case": [case_seed], "trace": [trace_seed], "keras": [keras_buffer.getvalue()], "backup": [backup_seed],
            "weights": [_saved(model.save_weights, "seed.weights.h5")], "keras_h5": [_saved(model.save, "seed.h5")]}


def write_corpus(folder: Path = CORPUS) -> None:
    """Writes ``seeds()`` under ``folder/<target>/`` (and ``folder/every/`` with the selector byte)."""
    names = sorted(TARGETS)
    for name, items in seeds().items():
        for i, item in enumerate(items):
            for target, data in ((name, item), ("every", bytes([names.index(name)]) + item)):
                path = folder / target / f"seed{i}_{name}"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)


if __name__ == "__main__":
    write_corpus(Path(os.environ.get("TFNET_FUZZ_CORPUS", CORPUS)))
