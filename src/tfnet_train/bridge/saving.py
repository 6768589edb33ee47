"""Whole-model files, transfer learning and Keras callbacks for the C# host: `model.Save`, `Keras.Models.LoadModel`,
`model.Export`, the layers of a model (`Trainable`, `GetLayer`, `Pop`, a model or layer reused in a new model), and
the callback specs (EarlyStopping, ModelCheckpoint, BackupAndRestore, TensorBoard) that C#'s Fit builds here."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np

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
    """`tfnet_train.load_model`: an engine model (compiled when the file was) from a `.keras` file, a whole-model
    `.h5` file of Keras 3 or tf.keras 2, or a tf.keras SavedModel directory."""
    from tfnet_train.engine import load_model as load

    return load(str(path), compile=bool(compile), safe_mode=bool(safe_mode))


def model_from_config(config: str) -> Model:
    """`keras.models.from_config` for a functional model: a new engine model (fresh weights) built by Keras's
    `Model.from_config` from `model.get_config()`'s JSON text."""
    import json

    if not isinstance(config, str):
        raise TypeError(f"config must be JSON text; got {type(config).__name__}")
    data = json.loads(config)
    if not isinstance(data, dict) or not all(k in data for k in ("layers", "input_layers", "output_layers")):
        raise ValueError("config must be a functional model's get_config() (layers, input_layers, output_layers); "
                         f"got keys {sorted(data) if isinstance(data, dict) else type(data).__name__}")
    return Model.from_config(data)


def export_model(model: Any, path: str, format: str = "tf_saved_model", keras_model: bool = False,
                 overwrite: bool = True) -> None:
    """`model.export(path, format, overwrite=overwrite)`: a checked SavedModel or ONNX export, written whole or not at
    all, only over an earlier export; `keras_model`: the SavedModel also carries the model to train (TF.NET's
    `save(dir, save_format: "tf")`)."""
    if not isinstance(model, Model):
        raise TypeError(f"model must be a tfnet_train Model; got {type(model).__name__}")
    model.export(str(path), format=str(format), keras_model=bool(keras_model), overwrite=bool(overwrite))


def _check_layer(layer: Any) -> Any:
    if not isinstance(layer, keras.layers.Layer):
        raise TypeError(f"layer must be a Keras layer; got {type(layer).__name__}")
    return layer


def model_layers(model: Any) -> list[Any]:
    """`model.layers`: the live layer objects (models used as layers included)."""
    if not isinstance(model, keras.Model):
        raise TypeError(f"model must be a Keras model; got {type(model).__name__}")
    return list(model.layers)


def layer_info(layer: Any) -> dict[str, Any]:
    """Name, class, trainable flag and parameter counts of one layer."""
    _check_layer(layer)
    trainable = sum(int(np.prod(v.shape)) for v in layer.trainable_weights)
    total = sum(int(np.prod(v.shape)) for v in layer.weights)
    return {"name": layer.name, "class_name": type(layer).__name__, "trainable": bool(layer.trainable),
            "is_model": isinstance(layer, keras.Model), "trainable_params": trainable,
            "non_trainable_params": total - trainable}


def set_trainable(layer: Any, trainable: bool) -> None:
    """`layer.trainable = trainable` (for a model: every layer in it). Takes effect at the next `compile`."""
    if not isinstance(trainable, bool):
        raise TypeError(f"trainable must be a bool; got {type(trainable).__name__}")
    _check_layer(layer).trainable = trainable


def get_layer(model: Any, name: str) -> Any:
    """`model.get_layer(name)`; ValueError naming the layers there are."""
    if not isinstance(model, keras.Model):
        raise TypeError(f"model must be a Keras model; got {type(model).__name__}")
    names = [layer.name for layer in model.layers]
    if name not in names:
        raise ValueError(f"name must be one of the model's layers {names}; got {name!r}")
    return model.get_layer(name)


def pop_layer(model: Any) -> Any:
    """`Sequential.pop()`: removes and returns the last layer (the model is rebuilt without it)."""
    if not isinstance(model, keras.Sequential):
        raise TypeError(f"pop() needs a Sequential model; got {type(model).__name__} (build a new model from "
                        "get_layer(...) outputs instead)")
    if not model.layers:
        raise ValueError("pop() needs a model with at least one layer; the model has none")
    return model.pop()


def param_counts(model: Any) -> dict[str, int]:
    """Trainable and non-trainable parameter counts (what `summary()` prints)."""
    if not isinstance(model, keras.Model):
        raise TypeError(f"model must be a Keras model; got {type(model).__name__}")
    trainable = sum(int(np.prod(v.shape)) for v in model.trainable_weights)
    total = sum(int(np.prod(v.shape)) for v in model.weights)
    return {"trainable": trainable, "non_trainable": total - trainable}


def apply_layer_object(layer: Any, inputs: list[Any]) -> Any:
    """`layer(inputs)` for an existing layer or model (its weights are shared with wherever else it is used)."""
    _check_layer(layer)
    x = inputs[0] if len(inputs) == 1 else list(inputs)
    return layer(x)


def build_callback(class_name: str, kwargs: dict[str, Any] | None = None) -> Any:
    """`tfnet_train.callbacks.<class_name>(**kwargs)` for one of CALLBACK_CLASSES."""
    from tfnet_train import callbacks

    if class_name not in CALLBACK_CLASSES:
        raise ValueError(f"class_name must be one of {list(CALLBACK_CLASSES)}; got {class_name!r}")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise TypeError(f"callback keyword arguments must be a dict; got {type(kwargs).__name__}")
    return getattr(callbacks, class_name)(**dict(kwargs or {}))
