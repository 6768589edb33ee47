"""Eager tensors, gradient tapes, loss and metric objects for the C# TensorFlow.NET-shaped surface.

C# keeps each tensor, variable, tape, loss, metric and optimizer as a handle to the Python object; these functions
are the only operations it runs on them. Shapes and structures are checked before anything changes, so a failed
call leaves variables and optimizer state as they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import keras
import tensorflow as tf

from tfnet_train.bridge.arrays import exchange_array
from tfnet_train.bridge.specs import _check_kwargs, _classes, _unknown, build_optimizer

#: The tf functions C# may call by name (TF.NET's `tf.<name>`); each takes tensors, numbers and plain lists.
OPS: dict[str, Any] = {
    "add": tf.add, "subtract": tf.subtract, "multiply": tf.multiply, "divide": tf.divide,
    "negative": tf.negative, "abs": tf.abs, "square": tf.square, "sqrt": tf.sqrt, "exp": tf.exp, "log": tf.math.log,
    "pow": tf.pow, "maximum": tf.maximum, "minimum": tf.minimum, "matmul": tf.matmul,
    "reduce_mean": tf.reduce_mean, "reduce_sum": tf.reduce_sum, "reduce_max": tf.reduce_max,
    "reduce_min": tf.reduce_min, "argmax": tf.argmax, "argmin": tf.argmin, "one_hot": tf.one_hot, "cast": tf.cast,
    "equal": tf.equal, "not_equal": tf.not_equal, "greater": tf.greater, "less": tf.less,
    "reshape": tf.reshape, "transpose": tf.transpose, "concat": tf.concat, "stack": tf.stack,
    "zeros": tf.zeros, "ones": tf.ones, "fill": tf.fill, "identity": tf.identity,
    "sigmoid": tf.sigmoid, "tanh": tf.tanh, "relu": tf.nn.relu, "softmax": tf.nn.softmax,
    "clip_by_value": tf.clip_by_value, "squeeze": tf.squeeze, "expand_dims": tf.expand_dims,
}


def to_tensor(value: Any, dtype: str | None = None) -> tf.Tensor:
    """`tf.convert_to_tensor(value, dtype)` (value: numpy array, number, list or tensor)."""
    return tf.convert_to_tensor(value, dtype=dtype)


def tensor_numpy(value: Any) -> Any:
    """The value of a tensor or variable as an exchange array (a TypeError for a symbolic tensor while tracing)."""
    from tfnet_train.bridge.host_code import check_eager

    check_eager(value, "tensor.numpy()")
    return exchange_array(value)


def tensor_info(value: Any) -> dict[str, Any]:
    """Shape (-1 for unknown), dtype name and, for variables, the name."""
    return {
        "shape": [-1 if d is None else int(d) for d in value.shape],
        "dtype": tf.as_dtype(value.dtype).name,
        "name": str(getattr(value, "path", getattr(value, "name", ""))),
    }


def tensor_op(name: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None) -> Any:
    """`tf.<name>(*args, **kwargs)` for a name in `OPS`; TF's shape errors come back as ValueError."""
    if name not in OPS:
        raise _unknown("op", name, sorted(OPS))
    try:
        return OPS[name](*args, **_check_kwargs("op", kwargs))
    except tf.errors.InvalidArgumentError as error:
        raise ValueError(f"tf.{name}: {error.message}") from None


def gradient_tape(persistent: bool = False) -> tf.GradientTape:
    """A tf.GradientTape, already recording (the C# `using` block is the `with` block)."""
    tape = tf.GradientTape(persistent=bool(persistent))
    tape.__enter__()
    return tape


def tape_stop(tape: tf.GradientTape) -> None:
    """Stop recording (the end of the C# `using` block); gradients may still be taken afterwards."""
    if tape._recording:
        tape.__exit__(None, None, None)


def tape_watch(tape: tf.GradientTape, tensors: Sequence[Any]) -> None:
    """`tape.watch` every tensor."""
    for t in tensors:
        tape.watch(t)


def tape_gradient(tape: tf.GradientTape, target: Any, sources: Sequence[Any]) -> list[Any]:
    """`tape.gradient(target, sources)`; ValueError naming each source the target does not depend on (TF's None)."""
    sources = list(sources)
    grads = tape.gradient(target, sources)
    missing = [f"sources[{i}] ({tensor_info(s)['name'] or 'tensor'})" for i, (g, s) in enumerate(zip(grads, sources))
               if g is None]
    if missing:
        raise ValueError(f"sources must be watched by the tape and used to compute target; no gradient for "
                         f"{', '.join(missing)}")
    return [tf.convert_to_tensor(g) for g in grads]


def model_call(model: Any, x: Any, training: bool = False) -> Any:
    """`model(x, training=training)`; one tensor for one output, else a list."""
    if not isinstance(model, keras.Model):
        raise TypeError(f"model must be a Keras model; got {type(model).__name__}")
    out = model(x, training=bool(training))
    return list(out) if isinstance(out, list | tuple) else out


def trainable_variables(model: Any) -> list[Any]:
    """`model.trainable_variables` (Keras order)."""
    return list(model.trainable_variables)


def model_layers(model: Any) -> list[dict[str, Any]]:
    """Class name, name and config of each layer of the model."""
    return [{"class_name": type(layer).__name__, "name": layer.name} for layer in model.layers]


def make_optimizer(spec: tuple[str, dict[str, Any] | None]) -> Any:
    """An optimizer object from a (class name, kwargs) pair, for custom loops."""
    return build_optimizer(spec[0], spec[1])


def apply_gradients(optimizer: Any, grads: Sequence[Any], variables: Sequence[Any]) -> None:
    """`optimizer.apply_gradients(zip(grads, variables))` after checking counts and shapes (no change on error)."""
    grads, variables = list(grads), list(variables)
    if len(grads) != len(variables):
        raise ValueError(f"grads_and_vars must pair every gradient with a variable; got {len(grads)} gradients "
                         f"and {len(variables)} variables")
    for i, (g, v) in enumerate(zip(grads, variables)):
        if not isinstance(v, tf.Variable | keras.Variable):
            raise TypeError(f"grads_and_vars[{i}] must pair with a variable; got {type(v).__name__}")
        if tuple(g.shape) != tuple(v.shape):
            raise ValueError(f"grads_and_vars[{i}]: gradient shape {tuple(g.shape)} does not match variable "
                             f"{tensor_info(v)['name']} shape {tuple(v.shape)}")
    optimizer.apply_gradients(zip(grads, variables))


def build_loss_object(name: str, kwargs: dict[str, Any] | None = None) -> Any:
    """A keras.losses object by class name (any case), `reduction` included."""
    from tfnet_train.bridge.specs import build_loss

    return build_loss(name, kwargs)


def loss_call(loss: Any, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
    """`loss(y_true, y_pred, sample_weight)` as a tensor."""
    return tf.convert_to_tensor(loss(y_true, y_pred, sample_weight=sample_weight))


def build_metric(name: str, kwargs: dict[str, Any] | None = None) -> Any:
    """A keras.metrics object by class name (`Accuracy`, `TopKCategoricalAccuracy`, `AUC`, `F1Score`, ...)."""
    kwargs = _check_kwargs("metric", kwargs)
    classes = _classes(keras.metrics, keras.metrics.Metric)
    for base in ("Metric", "MeanMetricWrapper", "Reduce"):
        classes.pop(base, None)
    if name not in classes:
        raise _unknown("metric", name, sorted(classes))
    return classes[name](**kwargs)


def metric_update(metric: Any, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
    """`metric.update_state(y_true, y_pred, sample_weight)`."""
    metric.update_state(y_true, y_pred, sample_weight=sample_weight)


def metric_result(metric: Any) -> Any:
    """`metric.result()` as a tensor."""
    return tf.convert_to_tensor(metric.result())


def metric_reset(metric: Any) -> None:
    """`metric.reset_state()`."""
    metric.reset_state()


def make_layer(spec: tuple[str, dict[str, Any] | None]) -> Any:
    """A Keras layer object from a (class name, kwargs) pair (kept by C# to share, adapt or call it)."""
    from tfnet_train.bridge.specs import build_layer

    return build_layer(spec[0], spec[1])


def layer_call(layer: Any, inputs: Sequence[Any], training: bool | None = None) -> Any:
    """`layer(inputs)` on one tensor or a list (merge layers)."""
    x = inputs[0] if len(inputs) == 1 else list(inputs)
    return layer(x) if training is None else layer(x, training=bool(training))


def layer_adapt(layer: Any, data: Any) -> None:
    """`layer.adapt(data)` (Normalization and other preprocessing layers)."""
    if not hasattr(layer, "adapt"):
        raise TypeError(f"layer must be a preprocessing layer with adapt(); got {type(layer).__name__}")
    layer.adapt(data)


def sequential_of(items: Sequence[Any], name: str | None = None) -> Any:
    """A tfnet_train Sequential of layer objects (models included) and (class name, kwargs) pairs."""
    from tfnet_train.bridge.specs import build_layer
    from tfnet_train.engine import Sequential

    layers = [build_layer(i[0], i[1]) if isinstance(i, tuple | list) else i for i in items]
    return Sequential(layers, name=name)


def model_config(model: Any) -> dict[str, Any]:
    """`model.get_config()` serialised as JSON text under "json"."""
    import json

    return {"json": json.dumps(model.get_config(), default=str)}
