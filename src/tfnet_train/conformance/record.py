"""Turn a live, compiled ``tfnet_train`` model plus data into a conformance case.

A Sequential stack of plain Dense layers on rank-1 samples is written in the case's Dense form, which every
implementation runs; any other Sequential or Functional model is written as its Keras architecture config
(``model.keras_config``) with all its weights, non-trainable ones included, which the engine and Keras run (the
NumPy and C# references report n/a, naming the layer).
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import numpy as np

from tfnet_train.conformance.case import (
    OPTIMIZER_DEFAULTS,
    Case,
    CaseArrays,
    KerasModelSpec,
    LossSpec,
    ModelSpec,
    Tolerance,
    optimizer_spec,
    save,
    validate_arrays,
)
from tfnet_train.conformance.keras_model import NoDenseForm, dense_form
from tfnet_train.semantics import get_profile

_LOSS_NAMES = {
    "MeanSquaredError": "mse", "mean_squared_error": "mse", "mse": "mse",
    "MeanAbsoluteError": "mae", "mean_absolute_error": "mae", "mae": "mae",
    "BinaryCrossentropy": "binary_crossentropy", "binary_crossentropy": "binary_crossentropy",
    "CategoricalCrossentropy": "categorical_crossentropy", "categorical_crossentropy": "categorical_crossentropy",
    "SparseCategoricalCrossentropy": "sparse_categorical_crossentropy",
    "sparse_categorical_crossentropy": "sparse_categorical_crossentropy",
}
# Reported metric names back to the identifiers a case uses (TF.NET's long names included).
_METRIC_IDS = {"accuracy": "accuracy", "acc": "acc", "mae": "mae", "mse": "mse", "mape": "mape",
               "mean_absolute_error": "mae", "mean_absolute_percentage_error": "mape", "mean_squared_error": "mse"}
_OPTIMIZER_NAMES = {"SGD": "sgd", "Adam": "adam", "AdamW": "adamw", "RMSprop": "rmsprop"}


def _model_spec(model: Any) -> ModelSpec | KerasModelSpec:
    """The Dense form when the model has one, else its Keras architecture config."""
    spec = KerasModelSpec(_keras_config(model))
    try:
        return dense_form(spec)
    except NoDenseForm:
        return spec


def _keras_config(model: Any) -> dict[str, Any]:
    """``{"class_name", "config"[, "build_config"]}`` of a Sequential or Functional model, every unset layer
    ``seed`` filled in (the live seed where the layer has drawn nothing yet), so each run draws the same masks."""
    import json

    import keras

    if not isinstance(model, keras.Sequential) and not getattr(model, "_is_graph_network", False):
        raise TypeError(f"model: expected a Sequential or Functional model (a subclassed model has no architecture "
                        f"config), got {type(model).__name__}")
    serialized = json.loads(model.to_json())
    class_name = "Sequential" if isinstance(model, keras.Sequential) else "Functional"
    config = {"class_name": class_name, "config": serialized["config"]}
    if serialized.get("build_config"):
        config["build_config"] = serialized["build_config"]
    by_name = {layer.name: layer for layer in model.layers}
    for layer_config in config["config"]["layers"]:
        inner = layer_config.get("config", {})
        _fill_seeds(inner, _live_seed(by_name.get(inner.get("name"))), inner.get("name", ""))
    return config


def _live_seed(layer: Any) -> int | None:
    """The seed of the layer's (or its cell's) random generator when it has not drawn yet, else None."""
    for owner in (layer, getattr(layer, "cell", None)):
        generator = getattr(owner, "seed_generator", None)
        state = getattr(generator, "state", None)
        if state is not None:
            seed, drawn = (int(v) for v in np.asarray(state.value.numpy()).ravel()[:2])
            return seed if drawn == 0 else None
    return None


def _fill_seeds(obj: Any, live: int | None, where: str) -> None:
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key.endswith("_initializer"):
                continue
            if key == "seed" and value is None:
                obj[key] = live if live is not None else zlib.crc32(f"{where}.seed".encode()) % 2**31
            else:
                _fill_seeds(value, live, f"{where}.{key}")
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            _fill_seeds(value, live, f"{where}[{i}]")


def _loss_spec(model: Any) -> LossSpec:
    import keras

    loss = getattr(model, "loss", None)
    if loss is None or isinstance(loss, list | tuple | dict):
        count = 0 if loss is None else len(loss)
        raise ValueError(f"model: expected one compiled loss, got {count}")
    loss = getattr(loss, "inner", loss)  # the tfnet profile's weighting wrapper
    if isinstance(loss, str):
        loss = keras.losses.get(loss)
    config = loss.get_config() if hasattr(loss, "get_config") else {}
    key = getattr(loss, "__name__", None) or type(loss).__name__
    if key == "LossFunctionWrapper":
        key = getattr(getattr(loss, "fn", None), "__name__", key)
    if key not in _LOSS_NAMES:
        raise ValueError(f"model: loss must be one of {sorted(set(_LOSS_NAMES.values()))}, got {key!r}")
    if config.get("label_smoothing"):
        raise ValueError(f"model: loss label_smoothing must be 0 for a case, got {config['label_smoothing']!r}")
    return LossSpec(name=_LOSS_NAMES[key], from_logits=bool(config.get("from_logits", False)))


def _metrics(model: Any) -> tuple[str, ...]:
    import keras

    from tfnet_train.keras_internals import compile_options

    given = (compile_options(model) or {}).get("metrics")
    names = []
    for metric in keras.tree.flatten(given) if given is not None else []:
        name = metric if isinstance(metric, str) else getattr(metric, "name", None)
        if get_profile(model.semantics).tfnet_metrics and isinstance(metric, str):
            from tfnet_train.engine.metrics_container import TFNET_NAMES

            name = TFNET_NAMES.get(metric, metric)
        if name not in _METRIC_IDS:
            raise ValueError(f"model: metric must be one of {sorted(_METRIC_IDS)}, got {name!r}")
        names.append(_METRIC_IDS[name])
    return tuple(names)


def _optimizer(model: Any) -> dict[str, Any]:
    optimizer = model.optimizer
    name = _OPTIMIZER_NAMES.get(type(optimizer).__name__)
    if name is None:
        raise ValueError(f"model: optimizer must be one of {sorted(_OPTIMIZER_NAMES)}, got {type(optimizer).__name__}")
    if int(optimizer.iterations) != 0:
        raise ValueError(f"model: the optimizer must be fresh (0 iterations) to start a case, got "
                         f"{int(optimizer.iterations)}")
    config = optimizer.get_config()
    if not isinstance(config.get("learning_rate"), int | float):
        raise ValueError(f"model: learning_rate must be a constant for a case, got {config.get('learning_rate')!r}")
    return {"name": name, **{k: config[k] for k in OPTIMIZER_DEFAULTS[name] if k in config}}


def record(model: Any, x: Any, y: Any, steps: int, path: str | Path, sample_weight: Any = None,
           batch_size: int | None = None) -> Case:
    """Write a case (``<path>.json`` + ``.npz``) that trains ``model``'s current weights on ``x``/``y`` for
    ``steps`` steps of ``batch_size`` rows (default ``len(x) // steps``); returns the case. ``x`` is one array of
    any rank (samples along the first axis); the model is written in the Dense form when it has one, else as its
    Keras architecture config with every weight (module docstring)."""
    if not hasattr(model, "train_step_traced") or not getattr(model, "compiled", False):
        raise TypeError(f"model: expected a compiled tfnet_train model, got {type(model).__name__}")
    if not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an int >= 1, got {steps!r}")
    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y)
    if batch_size is None:
        batch_size = len(x) // steps
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be an int >= 1 (rows per step), got {batch_size!r} for {len(x)} rows "
                         f"and {steps} steps")
    if len(x) < steps * batch_size:
        raise ValueError(f"x: expected at least steps * batch_size = {steps} * {batch_size} = {steps * batch_size} "
                         f"rows, got {len(x)}")
    json_path = Path(path)
    name = json_path.stem if json_path.suffix == ".json" else json_path.name
    loss = _loss_spec(model)
    if loss.name != "sparse_categorical_crossentropy" or y.dtype.kind == "f":
        y = y.astype(np.float32)
    case = Case(
        name=name, description=f"recorded from a {type(model).__name__}", semantics=model.semantics,
        model=_model_spec(model), loss=loss, metrics=_metrics(model),
        optimizer=optimizer_spec(_optimizer(model), name), batch_size=batch_size, steps=steps,
        tolerance=Tolerance())
    sw = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float32).reshape(-1)
    weights = [np.asarray(w, dtype=np.float32) for w in model.get_weights()]
    case.arrays = validate_arrays(case, CaseArrays(weights=weights, x=x, y=y, sample_weight=sw))
    directory = json_path.parent
    case.path = save(case, None, directory)
    return case
