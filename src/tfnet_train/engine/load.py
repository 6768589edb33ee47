"""``load_model`` (TensorFlow.NET's ``keras.models.load_model``): every whole-model format to an engine model, in
one place above the formats' readers (``legacy``, ``tf_keras_savedmodel``) and the model classes."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keras

from tfnet_train import archives
from tfnet_train.engine import h5_checks, legacy
from tfnet_train.engine.export import KERAS_MODEL_IN_SAVED_MODEL, refuse_interrupted_export
from tfnet_train.engine.model import Model
from tfnet_train.engine.tf_keras_savedmodel import load_saved_model


def load_model(filepath: Any, custom_objects: dict[str, Any] | None = None, compile: bool = True,
               safe_mode: bool = True) -> Model:
    """Keras's ``load_model`` returning engine models: an engine file as saved, and a file saved by plain Keras 3
    with its Sequential / Functional / Model opened as the engine's (compiled when the file was); whole-model ``.h5``
    files of Keras 3 and tf.keras 2 and tf.keras SavedModel directories as in :mod:`tfnet_train.engine.legacy`.

    ``safe_mode=True`` (Keras's default) refuses to deserialize Python code such as a ``Lambda`` layer's; pass
    ``safe_mode=False`` only for files you trust.
    """
    refuse_interrupted_export(filepath)  # a missing export folder whose old copy an interrupted export left aside
    kind = legacy.detect_format(filepath)
    if kind == "keras_in_saved_model":  # export(..., keras_model=True)'s folder: the .keras it carries
        return load_model(Path(filepath) / KERAS_MODEL_IN_SAVED_MODEL, custom_objects, compile, safe_mode)
    if kind == "h5":
        return legacy.load_h5(filepath, custom_objects, compile, safe_mode)
    if kind == "saved_model":
        return load_saved_model(filepath, custom_objects, compile, safe_mode)
    with _as_engine_file(filepath) as path:
        try:
            return keras.saving.load_model(path, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)
        except ValueError as error:
            if "safe_mode" not in str(error):
                raise
            raise ValueError(f"filepath {str(filepath)!r}: {error}") from None


_ENGINE_CLASSES = {"Sequential", "Functional"}


@contextlib.contextmanager
def _as_engine_file(filepath: Any) -> Iterator[Any]:
    """``filepath``, or for a ``.keras`` file whose model is Keras's own Sequential or Functional, a temporary copy
    naming the engine's class instead (Keras resolves its built-in classes before any custom object).

    Every ``.keras`` archive is checked first against caps from its declared sizes (``archives.MAX_KERAS_BYTES``
    in all, ``MAX_KERAS_CONFIG_BYTES`` for config.json); the copy streams each member (never one whole in memory)
    and is refused when the temporary folder has not the room.
    """
    path = Path(filepath)
    if path.suffix != ".keras" or not zipfile.is_zipfile(path):
        yield filepath
        return
    source = str(path)
    with archives.open_zip(path) as archive:
        members = archives.check_members(archive, source, archives.MAX_KERAS_BYTES, archives.MAX_NPZ_MEMBERS)
        h5_checks.check_keras_archive(path)
        try:
            config = json.loads(archives.read_member(archive, "config.json", source, archives.MAX_KERAS_CONFIG_BYTES))
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as error:
            raise ValueError(f"archive {source!r}: config.json is not JSON ({error})") from None
        if not isinstance(config, dict):
            raise ValueError(f"archive {source!r}: config.json must hold a JSON object, got {type(config).__name__}")
        keras_model = str(config.get("module", "")).startswith("keras") and config.get("class_name") in _ENGINE_CLASSES
        if not keras_model:
            yield filepath
            return
        config["module"] = None
        config["registered_name"] = f"tfnet_train>{config['class_name']}"
        with tempfile.TemporaryDirectory() as folder:
            needed = sum(item.file_size for item in members)
            free = archives.free_bytes(folder)
            if needed > free:
                raise OSError(f"archive {source!r}: a copy needs {needed} bytes, {folder!r} has {free} free")
            copy = Path(folder, path.name)
            with zipfile.ZipFile(copy, "w") as out:
                for item in members:
                    if item.filename == "config.json":
                        out.writestr(item, json.dumps(config).encode())
                        continue
                    try:
                        large = item.file_size > zipfile.ZIP64_LIMIT
                        with archive.open(item) as reader, out.open(item, "w", force_zip64=large) as writer:
                            shutil.copyfileobj(reader, writer, 1 << 20)
                    except archives.READ_ERRORS as error:
                        raise ValueError(f"archive {source!r}: member {item.filename!r} cannot be read ({error})"
                                         ) from None
            yield copy
