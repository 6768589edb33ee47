"""Fuzz targets: one per reader of untrusted bytes. Each takes bytes and either reads them or is refused with the
reader's own typed error; anything else (another exception, a crash, a hang) is a finding.

- ``case``: a case JSON document and its .npz (``conformance.case.load``), the input being
  ``<4-byte little-endian JSON length><JSON bytes><npz bytes>``;
- ``trace``: a trace file (``conformance.trace_files.read_step_npz``);
- ``keras``: a .keras archive as the engine opens it (``engine.load._as_engine_file``: caps, config.json, the
  streamed copy), then the archive Keras would read;
- ``backup``: BackupAndRestore's metadata (``callbacks.backup_and_restore.parse_metadata``).
"""

from __future__ import annotations

import io
import os
import struct
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

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


TARGETS: dict[str, Callable[[bytes], None]] = {"case": case, "trace": trace, "keras": keras, "backup": backup}


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


def seeds() -> dict[str, list[bytes]]:
    """Valid inputs per target, small: a suite case, a two-step trace, a saved Keras model's archive layout, the
    metadata BackupAndRestore writes."""
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
    return {"case": [case_seed], "trace": [trace_seed], "keras": [keras_buffer.getvalue()], "backup": [backup_seed]}


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
