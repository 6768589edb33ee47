"""Turn a live, compiled ``tfnet_train`` model (a Sequential of Dense layers) plus data into a conformance case."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tfnet_train.conformance.case import (
    OPTIMIZER_DEFAULTS,
    Case,
    CaseArrays,
    DenseSpec,
    LossSpec,
    ModelSpec,
    Tolerance,
    optimizer_spec,
    save,
    validate_arrays,
)

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


def _model_spec(model: Any) -> ModelSpec:
    import keras

    layers = []
    for layer in model.layers:
        if not isinstance(layer, keras.layers.Dense):
            raise TypeError(f"model: every layer must be keras.layers.Dense, got {type(layer).__name__} "
                            f"({layer.name!r})")
        activation = layer.get_config()["activation"]
        if not isinstance(activation, str):
            raise ValueError(f"model: layer {layer.name!r} activation must be a named activation, got {activation!r}")
        layers.append(DenseSpec(units=int(layer.units), activation=activation, use_bias=bool(layer.use_bias),
                                kernel_l2=_kernel_l2(layer)))
    if not layers:
        raise ValueError("model: expected at least one Dense layer, got none")
    kernel = model.layers[0].kernel
    return ModelSpec(input_dim=int(kernel.shape[0]), layers=tuple(layers))


def _kernel_l2(layer: Any) -> float | None:
    """The L2 factor of the layer's kernel regularizer; anything a case cannot express is refused."""
    import keras

    for what in ("bias_regularizer", "activity_regularizer", "kernel_constraint", "bias_constraint"):
        if getattr(layer, what, None) is not None:
            raise ValueError(f"model: layer {layer.name!r} has a {what}, which a conformance case cannot express")
    regularizer = layer.kernel_regularizer
    if regularizer is None:
        return None
    if type(regularizer) is not keras.regularizers.L2:
        raise ValueError(f"model: layer {layer.name!r} kernel_regularizer must be keras.regularizers.L2, "
                         f"got {type(regularizer).__name__}")
    return float(regularizer.l2)


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

    config = getattr(model, "_compile_config", None)
    given = config.config.get("metrics") if config is not None else None
    names = []
    for metric in keras.tree.flatten(given) if given is not None else []:
        name = metric if isinstance(metric, str) else getattr(metric, "name", None)
        if model.semantics == "tfnet" and isinstance(metric, str):
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
    ``steps`` steps of ``batch_size`` rows (default ``len(x) // steps``); returns the case."""
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
