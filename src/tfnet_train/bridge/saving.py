"""Whole-model files and Keras callbacks for the C# host: `model.Save`, `Keras.Models.LoadModel` and the callback
specs (EarlyStopping, ModelCheckpoint, BackupAndRestore, TensorBoard) that C#'s Fit builds here."""

from __future__ import annotations

from typing import Any

from tfnet_train.engine import Model

#: The callbacks of tfnet_train.callbacks that C# describes as specs.
CALLBACK_CLASSES: tuple[str, ...] = ("EarlyStopping", "ModelCheckpoint", "BackupAndRestore", "TensorBoard")


def save_model(model: Any, path: str, overwrite: bool = True) -> None:
    """`model.save(path)`: architecture, weights, compile configuration with optimizer state and `_train_counter`,
    written whole or not at all."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a tfnet_train Model; got {type(model).__name__}")
    model.save(str(path), overwrite=bool(overwrite))


def load_model(path: str, compile: bool = True, safe_mode: bool = True) -> Model:
    """`tfnet_train.load_model`: an engine model (compiled when the file was) from a `.keras` file of the engine
    or of Keras 3."""
    from tfnet_train import load_model as load

    return load(str(path), compile=bool(compile), safe_mode=bool(safe_mode))


def build_callback(class_name: str, kwargs: dict[str, Any] | None = None) -> Any:
    """`tfnet_train.callbacks.<class_name>(**kwargs)` for one of CALLBACK_CLASSES."""
    from tfnet_train import callbacks

    if class_name not in CALLBACK_CLASSES:
        raise ValueError(f"class_name must be one of {list(CALLBACK_CLASSES)}; got {class_name!r}")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise TypeError(f"callback keyword arguments must be a dict; got {type(kwargs).__name__}")
    return getattr(callbacks, class_name)(**dict(kwargs or {}))
