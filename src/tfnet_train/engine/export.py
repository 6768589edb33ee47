"""model.export: a SavedModel with a serving signature or an ONNX file, checked after writing and written whole or
not at all.

Keras 3 writes both (ONNX through the optional ``tf2onnx``, checked with ``onnxruntime``: ``pip install
"tfnet-train[onnx]"``). The engine writes into a temporary file or folder beside the target, loads it back
(``tf.saved_model.load``; ``onnxruntime.InferenceSession``), compares its outputs with ``predict`` on a batch within
the project's float32 tolerance, and only then renames it into place. A failed export leaves the target as it was.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

from tfnet_train.files import atomic_path, fsync_directory
from tfnet_train.tolerances import ATOL, RTOL

#: Formats ``export`` writes and checks.
EXPORT_FORMATS: tuple[str, ...] = ("tf_saved_model", "onnx")
#: Where ``export(..., keras_model=True)`` keeps the trainable model inside a SavedModel folder.
KERAS_MODEL_IN_SAVED_MODEL = Path("assets.extra", "model.keras")


@contextlib.contextmanager
def atomic_directory(path: Path) -> Iterator[Path]:
    """A temporary folder beside ``path``; on success it replaces ``path`` (an old folder there is moved aside
    first and removed after), on failure it is removed and ``path`` is untouched."""
    folder = path.parent if str(path.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder))
    try:
        yield temporary
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old", dir=folder))
            os.replace(path, old / "previous")
            os.replace(temporary, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(temporary, path)
        fsync_directory(folder)
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
               input_signature: Any = None, sample: Any = None, keras_model: bool = False, **kwargs: Any) -> None:
        """Keras's ``export`` for ``format`` in EXPORT_FORMATS ("tf_saved_model": a folder with ``serve`` and the
        ``serving_default`` signature; "onnx": one file), loaded back and compared with ``predict`` on ``sample``
        (default: a seeded batch shaped like the inputs) before it is renamed into place.

        ``keras_model=True`` (SavedModel only) also puts the whole model, as a ``.keras`` file, at
        ``assets.extra/model.keras`` in the folder, where SavedModel keeps its users' own files: ``load_model``
        on the folder then gives back a model to train (TF.NET's ``save(dir, save_format: "tf")`` is loaded back so).
        """
        if keras_model and format != "tf_saved_model":
            raise ValueError(f"keras_model=True needs format='tf_saved_model' (a folder to hold it), got {format!r}")
        if format not in EXPORT_FORMATS:
            raise ValueError(f"Unrecognized format={format!r}: format must be one of {list(EXPORT_FORMATS)}, "
                             f"got {format!r}")
        if not self.built:
            raise ValueError("export needs a built model: call it on data, build() it, or fit it first")
        if format == "onnx":
            try:
                import tf2onnx  # noqa: F401
            except ImportError:
                raise ImportError('format="onnx" needs tf2onnx and onnxruntime: pip install "tfnet-train[onnx]"') \
                    from None
        from tfnet_train.engine.save import _written_by_chief

        target = Path(filepath)
        batch = sample_batch(self) if sample is None else sample
        expected = self.predict(batch, verbose=0)
        keras_export = super().export  # type: ignore[misc]
        with _written_by_chief(self, target) as destination:
            if format == "tf_saved_model":
                with atomic_directory(destination) as temporary:
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
