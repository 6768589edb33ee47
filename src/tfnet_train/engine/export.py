"""model.export: a SavedModel with a serving signature or an ONNX file, checked after writing and written whole or
not at all, never over what is not an earlier export.

Keras 3 writes both (ONNX through the optional ``tf2onnx``, checked with ``onnxruntime``: ``pip install
"tfnet-train[onnx]"``). The engine writes into a temporary file or folder beside the target, loads it back
(``tf.saved_model.load``; ``onnxruntime.InferenceSession``), compares its outputs with ``predict`` on a batch within
the project's float32 tolerance, and only then renames it into place. A failed export leaves the target as it was.

A SavedModel target must be absent, an empty folder or an earlier export (a folder holding ``saved_model.pb`` and
only SavedModel entries); anything else is refused with a ValueError before anything is written, and an earlier
export with ``overwrite=False`` with a FileExistsError. The old export is replaced in two renames: to
``<target>.old-<hex>`` beside it, then the new one to ``<target>``, then the old one is removed (a second rename
that fails puts the old one back). A process killed between the two renames leaves no ``<target>`` but the whole
old export at ``<target>.old-<hex>``: the next export to that target moves it back first, and
``load_model(<target>)`` names it in its error.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

from tfnet_train.distribution import written_by_chief
from tfnet_train.files import atomic_path, fsync_directory
from tfnet_train.tolerances import ATOL, RTOL

#: Formats ``export`` writes and checks.
EXPORT_FORMATS: tuple[str, ...] = ("tf_saved_model", "onnx")
#: Where ``export(..., keras_model=True)`` keeps the trainable model inside a SavedModel folder.
KERAS_MODEL_IN_SAVED_MODEL = Path("assets.extra", "model.keras")


#: The entries of a SavedModel folder: TensorFlow's, tf.keras's metadata, and ``assets.extra`` (SavedModel's place for
#: its users' files, where ``keras_model=True`` puts the model). A folder holding anything else is not replaced.
SAVED_MODEL_ENTRIES = frozenset({"saved_model.pb", "saved_model.pbtxt", "variables", "assets", "assets.extra",
                                 "fingerprint.pb", "keras_metadata.pb"})
#: What the old export is renamed to, beside the target, while the new one takes its place: ``<name>.old-<hex>``
#: with 12 lowercase hex digits (no other name is taken for one).
OLD_EXPORT_MARK = ".old-"
_OLD_EXPORT_HEX = re.compile(r"[0-9a-f]{12}")


def _is_saved_model_folder(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink() and any((path / n).is_file() for n in ("saved_model.pb",
                                                                                            "saved_model.pbtxt"))


def check_saved_model_target(path: Path, overwrite: bool) -> None:
    """Refuse a SavedModel ``path`` that is neither absent, an empty folder nor an earlier export (ValueError naming
    what is there), and an earlier export when ``overwrite`` is false (FileExistsError)."""
    if not os.path.lexists(path):
        return
    expected = "expected no such path, an empty folder or an earlier export (a SavedModel folder) to replace"
    if path.is_symlink():
        raise ValueError(f"filepath {str(path)!r} is a symbolic link; {expected}")
    if not path.is_dir():
        raise ValueError(f"filepath {str(path)!r} is a file, not a SavedModel folder; {expected}")
    entries = sorted(os.listdir(path))
    if not entries:
        return
    if not _is_saved_model_folder(path):
        shown = entries[:5] + (["..."] if len(entries) > 5 else [])
        raise ValueError(f"filepath {str(path)!r} is a folder that is not a SavedModel (no saved_model.pb; it holds "
                         f"{shown}); {expected}")
    foreign = [e for e in entries if e not in SAVED_MODEL_ENTRIES]
    if foreign:
        raise ValueError(f"filepath {str(path)!r} is a SavedModel folder that also holds {foreign[:5]}, which the "
                         f"export would delete; {expected}, holding only {sorted(SAVED_MODEL_ENTRIES)}")
    if not overwrite:
        raise FileExistsError(errno.EEXIST, f"filepath {str(path)!r} holds an earlier export and overwrite=False")


def check_file_target(path: Path, overwrite: bool) -> None:
    """Refuse a one-file export (ONNX) over a folder (ValueError) or over a file when ``overwrite`` is false."""
    if path.is_dir():
        raise ValueError(f"filepath {str(path)!r} is a folder; expected a file path for format='onnx'")
    if os.path.lexists(path) and not overwrite:
        raise FileExistsError(errno.EEXIST, f"filepath {str(path)!r} exists and overwrite=False")


def interrupted_exports(path: Path) -> list[Path]:
    """Old exports an interrupted export left beside ``path`` (``<name>.old-<hex>`` SavedModel folders)."""
    folder = path.parent
    prefix = path.name + OLD_EXPORT_MARK
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(folder / n for n in names if n.startswith(prefix) and _OLD_EXPORT_HEX.fullmatch(n[len(prefix):])
                  and _is_saved_model_folder(folder / n))


def refuse_interrupted_export(filepath: object) -> None:
    """FileNotFoundError naming the old export when ``filepath`` is missing because an export was interrupted
    between its two renames (``load_model`` calls this; it moves nothing)."""
    if not isinstance(filepath, str | os.PathLike):
        return
    path = Path(filepath)
    if os.path.lexists(path):
        return
    left = interrupted_exports(path)
    if left:
        raise FileNotFoundError(errno.ENOENT, f"filepath {str(path)!r} does not exist: an export to it was interrupted "
                                f"between its two renames and left the previous export at {str(left[0])!r}; rename "
                                "it back, or export again (which moves it back first)")


def recover_interrupted_export(path: Path) -> None:
    """Move the old export an interrupted export left beside a missing ``path`` back to ``path``; ValueError when
    there are several (which one is the last cannot be told)."""
    if os.path.lexists(path):
        return
    left = interrupted_exports(path)
    if len(left) > 1:
        raise ValueError(f"filepath {str(path)!r} does not exist and interrupted exports left {[str(p) for p in left]} "
                         "beside it; expected at most one: keep the one to replace at that path and remove the others")
    if left:
        os.replace(left[0], path)
        fsync_directory(path.parent)


@contextlib.contextmanager
def atomic_directory(path: Path, overwrite: bool = True) -> Iterator[Path]:
    """A temporary folder beside ``path``; on success it replaces ``path``, on failure it is removed and ``path`` is
    untouched. ``path`` must pass :func:`check_saved_model_target` (checked before and again after writing); an old
    export there is renamed to ``<name>.old-<hex>`` first and removed only once the new one is in place."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    recover_interrupted_export(path)
    check_saved_model_target(path, overwrite)
    temporary = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder))
    try:
        yield temporary
        check_saved_model_target(path, overwrite)  # something may have come there while the export was written
        finished = interrupted_exports(path)  # old copies of exports killed after both renames
        if os.path.lexists(path):
            old = folder / f"{path.name}{OLD_EXPORT_MARK}{secrets.token_hex(6)}"
            os.replace(path, old)
            # Here, and only here, no export is at `path`: the old one is whole at `old` (recovered as above).
            try:
                os.replace(temporary, path)
            except OSError:
                os.replace(old, path)  # the rename failed (a kill cannot come here): the old export goes back
                raise
            finished.append(old)
        else:
            os.replace(temporary, path)
        fsync_directory(folder)
        for stale in finished:
            shutil.rmtree(stale, ignore_errors=True)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)


def sample_batch(model: Any, batch_size: int = 4) -> Any:
    """A fixed batch (seeded normal values) shaped like the model's inputs, for checking an export."""
    inputs = getattr(model, "inputs", None)
    if not inputs:
        raise ValueError("export needs a built model with known inputs, or pass sample=<a batch of inputs>")
    rng = np.random.default_rng(0)
    batch = []
    for spec in inputs:
        shape = [batch_size, *spec.shape[1:]]
        if any(d is None for d in shape):
            raise ValueError(f"input {spec.name!r} has unknown dimensions {tuple(spec.shape)}; pass sample=<a batch>")
        dtype = np.dtype(spec.dtype)
        values = rng.normal(size=shape) if dtype.kind == "f" else np.zeros(shape)
        batch.append(values.astype(dtype))
    return batch[0] if len(batch) == 1 else batch


def _flat(values: Any) -> list[np.ndarray]:
    return [np.asarray(v) for v in tf.nest.flatten(values)]


def _compare(path: Path, expected: Any, actual: Any) -> None:
    expected, actual = _flat(expected), _flat(actual)
    if len(expected) != len(actual):
        raise ValueError(f"export to {str(path)!r} failed its check: it returns {len(actual)} outputs, predict "
                         f"returns {len(expected)}")
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e.shape != a.shape or not np.allclose(a, e, rtol=RTOL, atol=ATOL):
            detail = f"shape {a.shape} vs {e.shape}" if e.shape != a.shape else f"max |diff| {np.abs(a - e).max():g}"
            raise ValueError(f"export to {str(path)!r} failed its check: output {i} differs from predict ({detail}; "
                             f"tolerance rtol {RTOL:g}, atol {ATOL:g}); nothing was written")


def check_saved_model(folder: Path, sample: Any, expected: Any, target: Path) -> None:
    """Load the SavedModel in ``folder`` and compare its ``serve`` and ``serving_default`` with ``expected``."""
    loaded = tf.saved_model.load(str(folder))
    if "serving_default" not in loaded.signatures:
        raise ValueError(f"export to {str(target)!r} failed its check: no serving_default signature")
    _compare(target, expected, loaded.serve(sample))
    signature = loaded.signatures["serving_default"]
    arguments = list(signature.structured_input_signature[1])
    if len(arguments) == 1 and not isinstance(sample, list):  # what TF Serving calls
        outputs = signature(**{arguments[0]: tf.constant(sample)})
        _compare(target, expected, [outputs[k] for k in sorted(outputs)])


def check_onnx(file: Path, sample: Any, expected: Any, target: Path) -> None:
    """Run the ONNX file in ``file`` with ONNX Runtime and compare its outputs with ``expected``."""
    try:
        import onnxruntime
    except ImportError:
        raise ImportError('checking an ONNX export needs onnxruntime: pip install "tfnet-train[onnx]"') from None
    session = onnxruntime.InferenceSession(str(file), providers=["CPUExecutionProvider"])
    samples = sample if isinstance(sample, list) else [sample]
    feed = {i.name: np.asarray(s) for i, s in zip(session.get_inputs(), samples)}
    _compare(target, expected, session.run(None, feed))


class ExportMixin:
    """``export`` written whole or not at all and checked against ``predict``."""

    def export(self, filepath: str | os.PathLike[str], format: str = "tf_saved_model", verbose: bool | None = None,
               input_signature: Any = None, sample: Any = None, keras_model: bool = False, overwrite: bool = True,
               **kwargs: Any) -> None:
        """Keras's ``export`` for ``format`` in EXPORT_FORMATS ("tf_saved_model": a folder with ``serve`` and the
        ``serving_default`` signature; "onnx": one file), loaded back and compared with ``predict`` on ``sample``
        (default: a seeded batch shaped like the inputs) before it is renamed into place.

        ``keras_model=True`` (SavedModel only) also puts the whole model, as a ``.keras`` file, at
        ``assets.extra/model.keras`` in the folder, where SavedModel keeps its users' own files: ``load_model``
        on the folder then gives back a model to train (TF.NET's ``save(dir, save_format: "tf")`` is loaded back so).

        The target must be absent, or an earlier export of the same format: a SavedModel folder holding only
        SavedModel entries (an empty folder too), or for ONNX a file. Anything else is refused (ValueError naming it)
        before anything is written; an earlier export is replaced when ``overwrite`` (the default, as Keras's and
        TF.NET's ``save``), refused with a FileExistsError otherwise.
        """
        if keras_model and format != "tf_saved_model":
            raise ValueError(f"keras_model=True needs format='tf_saved_model' (a folder to hold it), got {format!r}")
        if format not in EXPORT_FORMATS:
            raise ValueError(f"Unrecognized format={format!r}: format must be one of {list(EXPORT_FORMATS)}, "
                             f"got {format!r}")
        if not isinstance(overwrite, bool):
            raise TypeError(f"overwrite must be a bool, got {type(overwrite).__name__}")
        if not self.built:
            raise ValueError("export needs a built model: call it on data, build() it, or fit it first")
        if format == "onnx":
            try:
                import tf2onnx  # noqa: F401
            except ImportError:
                raise ImportError('format="onnx" needs tf2onnx and onnxruntime: pip install "tfnet-train[onnx]"') \
                    from None
        target = Path(filepath)
        if format == "tf_saved_model":  # before any work, on every worker (as save's overwrite check)
            check_saved_model_target(target, overwrite)
        else:
            check_file_target(target, overwrite)
        batch = sample_batch(self) if sample is None else sample
        expected = self.predict(batch, verbose=0)
        keras_export = super().export  # type: ignore[misc]
        with written_by_chief(self, target) as destination:
            if format == "tf_saved_model":
                with atomic_directory(destination, overwrite) as temporary:
                    keras_export(str(temporary), format=format, verbose=bool(verbose), input_signature=input_signature,
                                 **kwargs)
                    check_saved_model(temporary, batch, expected, target)
                    if keras_model:
                        self.save(temporary / KERAS_MODEL_IN_SAVED_MODEL)
            else:
                with atomic_path(destination, suffix=".onnx") as temporary:
                    keras_export(str(temporary), format=format, verbose=bool(verbose), input_signature=input_signature,
                                 **kwargs)
                    check_onnx(temporary, batch, expected, target)
                    check_file_target(destination, overwrite)  # again: a file may have come there meanwhile
