"""Model calls for the C# host: models are handles (the Python object), everything else is plain data —
exchange arrays (see `arrays`), dicts of floats, lists and strings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tfnet_train.bridge.arrays import exchange_array, exchange_dtype, exchange_list
from tfnet_train.bridge.cancellation import with_cancel
from tfnet_train.bridge.specs import build_layer, build_layers, build_loss, build_optimizer
from tfnet_train.engine import Model, Sequential

Spec = tuple[str, dict[str, Any] | None]


def _check_model(model: Any) -> Model:
    if not isinstance(model, Model):
        raise TypeError(f"model must be a tfnet_train Model; got {type(model).__name__}")
    return model


def _spec_or_value(value: Any, build: Any) -> Any:
    """A (name, kwargs) pair is built with `build`; strings, None and objects pass through."""
    if isinstance(value, tuple | list) and len(value) == 2 and isinstance(value[0], str):
        return build(value[0], value[1])
    return value


def set_random_seed(seed: int) -> None:
    """Seed Python, NumPy and Keras (weight initialisers, dropout, shuffling), as `keras.utils.set_random_seed`."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an int in [0, 2**32); got {seed!r}")
    keras.utils.set_random_seed(seed)


def sequential(layers: Sequence[Spec | Any], name: str | None = None) -> Model:
    """A tfnet_train Sequential from (Keras layer class name, kwargs) pairs ("Input" gives keras.Input) and layer or
    model objects (existing layers keep, and share, their weights), in order."""
    if not layers:
        raise ValueError("layers must hold at least one layer spec; got an empty list")
    return Sequential([build_layer(*item) if isinstance(item, tuple | list) else item for item in layers], name=name)


def apply_layer(layer: Spec, inputs: Sequence[Any]) -> Any:
    """Build a layer from its spec and call it on symbolic inputs (one tensor, or a list for merge layers)."""
    if not inputs:
        raise ValueError("inputs must hold at least one symbolic tensor; got none")
    built = build_layers([layer])[0]
    return built(inputs[0] if len(inputs) == 1 else list(inputs))


def functional(inputs: Sequence[Any], outputs: Sequence[Any], name: str | None = None) -> Model:
    """A functional tfnet_train Model from symbolic inputs and outputs (single ones are unwrapped)."""
    if not inputs or not outputs:
        raise ValueError(f"inputs and outputs must be non-empty; got {len(inputs)} inputs, {len(outputs)} outputs")
    unwrap = (lambda t: t[0] if len(t) == 1 else list(t))  # noqa: E731
    return Model(inputs=unwrap(inputs), outputs=unwrap(outputs), name=name)


def tensor_shape(tensor: Any) -> list[int]:
    """The shape of a symbolic tensor, -1 for unknown dimensions."""
    return [-1 if d is None else int(d) for d in tensor.shape]


def compile_model(
    model: Any,
    optimizer: Any = "rmsprop",
    loss: Any = None,
    metrics: Sequence[str] | None = None,
    semantics: str = "keras",
    run_eagerly: bool = False,
    jit_compile: bool = False,
    steps_per_execution: int = 1,
) -> None:
    """`model.compile` where optimizer and loss may be (class name, kwargs) pairs or strings."""
    _check_model(model).compile(
        optimizer=_spec_or_value(optimizer, build_optimizer),
        loss=_spec_or_value(loss, build_loss),
        metrics=None if metrics is None else list(metrics),
        semantics=semantics,
        run_eagerly=bool(run_eagerly),
        jit_compile=bool(jit_compile),
        steps_per_execution=int(steps_per_execution),
    )


def train_on_batch(model: Any, x: Any, y: Any, sample_weight: Any = None, reset_metrics: bool = True
                   ) -> dict[str, float]:
    """`model.train_on_batch(..., return_dict=True)`: one training step on exactly this batch."""
    return _check_model(model).train_on_batch(x, y, sample_weight=sample_weight, return_dict=True,
                                              reset_metrics=bool(reset_metrics))


def train_step_traced(model: Any, x: Any, y: Any, sample_weight: Any = None) -> dict[str, Any]:
    """One training step with every stage's value: each array crosses once, in StepTrace.flat() form under "flat"
    ("inputs/x/0", "gradients/1", "optimizer_state/momentum/0", "metrics/loss", ...), beside the step and names."""
    trace = _check_model(model).train_step_traced(x, y, sample_weight=sample_weight)
    return {
        "step": int(trace.step),
        "variable_names": [str(n) for n in trace.variable_names],
        "weight_names": [str(n) for n in trace.weight_names],
        "flat": {key: exchange_array(value) for key, value in trace.flat().items()},
    }


def fit(
    model: Any,
    x: Any,
    y: Any = None,
    batch_size: int | None = None,
    epochs: int = 1,
    verbose: int = 0,
    callbacks: Sequence[Any] | None = None,
    validation_split: float = 0.0,
    validation_data: Sequence[Any] | None = None,
    shuffle: bool = True,
    sample_weight: Any = None,
    initial_epoch: int = 0,
    steps_per_epoch: int | None = None,
    validation_freq: int = 1,
    class_weight: dict[int, float] | None = None,
    cancel: Any = None,
) -> dict[str, Any]:
    """`model.fit`; returns {"history": {name: [float per epoch]}, "epoch": [int]}. ``cancel``: the host's
    cancellation flag (see `cancellation`), checked at each batch end."""
    history = _check_model(model).fit(
        x, y, batch_size=batch_size, epochs=epochs, verbose=verbose,
        callbacks=with_cancel(callbacks, cancel), validation_split=validation_split,
        validation_data=None if validation_data is None else tuple(validation_data), shuffle=shuffle,
        class_weight=class_weight, sample_weight=sample_weight, initial_epoch=initial_epoch,
        steps_per_epoch=steps_per_epoch, validation_freq=validation_freq,
    )
    return {
        "history": {name: [float(v) for v in values] for name, values in history.history.items()},
        "epoch": [int(e) for e in history.epoch],
    }


def evaluate(
    model: Any, x: Any, y: Any = None, batch_size: int | None = None, sample_weight: Any = None,
    steps: int | None = None, cancel: Any = None,
) -> dict[str, float]:
    """`model.evaluate(..., return_dict=True)`, silent; ``cancel`` as for `fit`."""
    return _check_model(model).evaluate(
        x, y, batch_size=batch_size, verbose=0, sample_weight=sample_weight, steps=steps, return_dict=True,
        callbacks=with_cancel(None, cancel))


def predict(model: Any, x: Any, batch_size: int | None = None, steps: int | None = None, cancel: Any = None
            ) -> list[np.ndarray]:
    """`model.predict`, silent; always a list of exchange arrays (one per model output); ``cancel`` as for `fit`."""
    out = _check_model(model).predict(x, batch_size=batch_size, verbose=0, steps=steps,
                                      callbacks=with_cancel(None, cancel))
    return exchange_list(out if isinstance(out, list | tuple) else [out])


def predict_tensors(model: Any, x: Any, batch_size: int | None = None, steps: int | None = None,
                    cancel: Any = None) -> list[tf.Tensor]:
    """`model.predict`, silent, as eager tensors (one per model output) that stay in Python until read; ``cancel``
    as for `fit`."""
    out = _check_model(model).predict(x, batch_size=batch_size, verbose=0, steps=steps,
                                      callbacks=with_cancel(None, cancel))
    return [tf.convert_to_tensor(o) for o in (out if isinstance(out, list | tuple) else [out])]


def get_weights(model: Any) -> list[np.ndarray]:
    """Every weight in Keras `get_weights()` order, as exchange arrays."""
    return exchange_list(_check_model(model).get_weights())


def set_weights(model: Any, weights: Sequence[Any]) -> None:
    """`model.set_weights` (Keras order); the count, and each array's shape and exchange dtype, must be the
    model's: checked before any weight changes (Keras itself would cast another dtype silently)."""
    model = _check_model(model)
    weights = list(weights)
    variables = model.weights
    if len(weights) != len(variables):
        raise ValueError(f"weights: the model has {len(variables)} weights; got {len(weights)} arrays")
    for i, (variable, value) in enumerate(zip(variables, weights, strict=True)):
        value = np.asarray(value)
        shape, dtype = tuple(int(d) for d in variable.shape), exchange_dtype(str(variable.dtype))
        if value.shape != shape or value.dtype != dtype:
            raise ValueError(f"weights[{i}] ({getattr(variable, 'path', variable.name)}) must be {dtype.name} "
                             f"{shape}; got {value.dtype.name} {value.shape}")
    model.set_weights(weights)


def weight_layout(model: Any) -> dict[str, list[Any]]:
    """Names, shapes and dtype names of the weights, in `get_weights()` order."""
    weights = _check_model(model).weights
    return {
        "names": [str(getattr(w, "path", w.name)) for w in weights],
        "shapes": [[int(d) for d in w.shape] for w in weights],
        "dtypes": [np.dtype(str(w.dtype)).name for w in weights],
    }


def train_counter(model: Any) -> int:
    """The int64 `_train_counter`: 0 at the start of each fit, +1 per step."""
    return int(_check_model(model)._train_counter.numpy())


def get_stop_training(model: Any) -> bool:
    """Whether a callback asked fit to stop."""
    return bool(getattr(_check_model(model), "stop_training", False))


def set_stop_training(model: Any, value: bool) -> None:
    """Ask fit to stop after the current step (as `model.stop_training = True` in a Keras callback)."""
    _check_model(model).stop_training = bool(value)


def save_weights(model: Any, path: str) -> None:
    """`model.save_weights(path)`, written whole or not at all; `.weights.h5` or (as TF.NET names it) `.h5`."""
    _check_model(model).save_weights(str(path))


def save_weights_any_name(model: Any, path: str) -> None:
    """TF.NET's `model.save_weights(path)`: Keras's weights HDF5 under any name (TF.NET writes HDF5 whatever the
    extension), written whole or not at all."""
    _check_model(model)._save_weights_hdf5(Path(path))


def load_weights(model: Any, path: str) -> None:
    """`model.load_weights(path)` (`.weights.h5`, the engine's `.h5`, `.keras`); all or nothing."""
    _check_model(model).load_weights(str(path))


def summary(model: Any) -> str:
    """`model.summary()` as text."""
    lines: list[str] = []
    _check_model(model).summary(print_fn=lambda line, *args, **kwargs: lines.append(line))
    return "\n".join(lines)
