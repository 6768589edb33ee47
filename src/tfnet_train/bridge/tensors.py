"""Eager tensors, gradient tapes, loss and metric objects for the C# TensorFlow.NET-shaped surface.

C# keeps each tensor, variable, tape, loss, metric and optimizer as a handle to the Python object; these functions
are the only operations it runs on them. Shapes and structures are checked before anything changes, so a failed
call leaves variables and optimizer state as they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import keras
import numpy as np
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
    "slice": tf.slice, "tile": tf.tile, "gather": tf.gather, "gather_nd": tf.gather_nd,
    "squared_difference": tf.math.squared_difference, "ones_like": tf.ones_like, "zeros_like": tf.zeros_like,
    "reduce_prod": tf.reduce_prod, "reduce_std": tf.math.reduce_std, "reduce_variance": tf.math.reduce_variance,
    "reduce_all": tf.reduce_all, "reduce_any": tf.reduce_any, "floordiv": tf.math.floordiv,
    "floormod": tf.math.floormod, "greater_equal": tf.greater_equal, "less_equal": tf.less_equal,
    "logical_and": tf.logical_and, "logical_or": tf.logical_or, "logical_not": tf.logical_not,
    "where": tf.where, "range": tf.range, "size": tf.size, "shape": tf.shape, "rank": tf.rank,
    "sin": tf.sin, "cos": tf.cos, "tan": tf.tan, "floor": tf.floor, "ceil": tf.math.ceil, "round": tf.round,
    "sign": tf.sign, "reciprocal": tf.math.reciprocal, "rsqrt": tf.math.rsqrt, "log1p": tf.math.log1p,
    "softplus": tf.math.softplus, "erf": tf.math.erf, "add_n": tf.add_n, "cumsum": tf.cumsum,
    "top_k": lambda x, k=1: tf.math.top_k(x, k).values, "in_top_k": tf.math.in_top_k,
    "count_nonzero": tf.math.count_nonzero, "l2_normalize": tf.math.l2_normalize,
    "truediv": tf.math.truediv, "einsum": tf.einsum, "pad": tf.pad,
    "split": tf.split, "unstack": tf.unstack, "broadcast_to": tf.broadcast_to, "boolean_mask": tf.boolean_mask,
    "random_normal": tf.random.normal, "random_uniform": tf.random.uniform,
    "truncated_normal": tf.random.truncated_normal, "random_shuffle": tf.random.shuffle,
    "nn_sparse_softmax_cross_entropy_with_logits": tf.nn.sparse_softmax_cross_entropy_with_logits,
    "nn_softmax_cross_entropy_with_logits": tf.nn.softmax_cross_entropy_with_logits,
    "nn_sigmoid_cross_entropy_with_logits": tf.nn.sigmoid_cross_entropy_with_logits,
    "nn_conv2d": tf.nn.conv2d, "nn_bias_add": tf.nn.bias_add, "nn_max_pool": tf.nn.max_pool2d,
    "nn_avg_pool": tf.nn.avg_pool2d, "nn_dropout": tf.nn.dropout, "nn_log_softmax": tf.nn.log_softmax,
    "nn_leaky_relu": tf.nn.leaky_relu, "nn_elu": tf.nn.elu, "nn_tanh": tf.nn.tanh, "nn_l2_loss": tf.nn.l2_loss,
    "nn_moments": lambda x, axes, keepdims=False: list(tf.nn.moments(x, axes, keepdims=keepdims)),
    "keras_activation": lambda name, x: keras.activations.get(name)(x),
    "keras_top_k_categorical_accuracy": lambda y_true, y_pred, k=5: keras.metrics.top_k_categorical_accuracy(
        y_true, y_pred, k=k),
    "keras_sparse_top_k_categorical_accuracy": lambda y_true, y_pred, k=5: (
        keras.metrics.sparse_top_k_categorical_accuracy(y_true, y_pred, k=k)),
    "nn_embedding_lookup": tf.nn.embedding_lookup, "nn_relu6": tf.nn.relu6, "nn_silu": tf.nn.silu,
}


def to_tensor(value: Any, dtype: str | None = None) -> tf.Tensor:
    """`tf.convert_to_tensor(value, dtype)` (value: numpy array, number, list or tensor)."""
    return tf.convert_to_tensor(value, dtype=dtype)


def tensor_numpy(value: Any) -> Any:
    """The value of a tensor or variable as an exchange array (a TypeError for a symbolic tensor while tracing)."""
    from tfnet_train.bridge.host_code import check_eager

    check_eager(value, "tensor.numpy()")
    return exchange_array(value)


def tensor_value(value: Any) -> Any:
    """The value of a tensor or variable as a numpy array, kept in Python for C# to wrap without copying (a TypeError
    for a symbolic tensor while tracing)."""
    from tfnet_train.bridge.host_code import check_eager

    check_eager(value, "tensor.numpy()")
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def tensor_getitem(value: Any, key: Sequence[Any]) -> Any:
    """`value[key]` with keys as `numpy_face.getitem` takes them (ints, slice strings)."""
    from tfnet_train.bridge.numpy_face import _key

    try:
        return value[_key(key)]
    except (IndexError, ValueError, tf.errors.InvalidArgumentError) as error:
        raise ValueError(f"index {list(key)!r} does not fit shape {tuple(value.shape)}: {error}") from None


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


def make_variable(value: Any, dtype: str | None = None, name: str | None = None, trainable: bool = True) -> tf.Variable:
    """`tf.Variable(value, dtype=dtype, name=name, trainable=trainable)` (value: number, array, list or tensor)."""
    initial = tf.convert_to_tensor(value, dtype=dtype)
    return tf.Variable(initial, name=name, trainable=bool(trainable))


def variable_assign(variable: Any, method: str, value: Any) -> Any:
    """`variable.assign(value)`, `assign_add` or `assign_sub`; shapes are checked first (no change on error)."""
    if method not in ("assign", "assign_add", "assign_sub"):
        raise _unknown("assignment", method, ["assign", "assign_add", "assign_sub"])
    if not isinstance(variable, (tf.Variable, keras.Variable)):
        raise TypeError(f"variable must be a tf.Variable or a Keras variable; got {type(variable).__name__}")
    value = tf.convert_to_tensor(value, dtype=variable.dtype)
    if not tf.TensorShape(variable.shape).is_compatible_with(value.shape):
        raise ValueError(f"{method}: value shape {tuple(value.shape)} does not match variable {variable.name} "
                         f"shape {tuple(variable.shape)}")
    getattr(variable, method)(value)
    return variable


def clear_session() -> None:
    """`keras.backend.clear_session()`."""
    keras.backend.clear_session()


def executing_eagerly() -> bool:
    """`tf.executing_eagerly()` (always True on this engine's host side)."""
    return bool(tf.executing_eagerly())


def dataset_iterator(dataset: Any) -> Any:
    """An iterator over `dataset` (one pass), for C# enumeration."""
    if not isinstance(dataset, tf.data.Dataset):
        raise TypeError(f"dataset must be a tf.data.Dataset; got {type(dataset).__name__}")
    return iter(dataset)


def iterator_next(iterator: Any) -> list[Any] | None:
    """The next element as a flat list of tensors, or None at the end of the pass."""
    try:
        element = next(iterator)
    except StopIteration:
        return None
    return list(element) if isinstance(element, tuple | list) else [element]


def dataset_zip(datasets: Sequence[Any]) -> tf.data.Dataset:
    """`tf.data.Dataset.zip(tuple(datasets))`."""
    return tf.data.Dataset.zip(tuple(datasets))


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


def hamming_loss(y_true: Any, y_pred: Any, threshold: float | None = None, mode: str = "multiclass") -> Any:
    """Per-sample Hamming loss as TF Addons defines it: the fraction of wrong labels ("multilabel"), or 1 when the
    one thresholded class misses ("multiclass"); without a threshold, each row's maximum is the predicted class."""
    if mode not in ("multiclass", "multilabel"):
        raise ValueError(f"mode must be 'multiclass' or 'multilabel'; got {mode!r}")
    y_pred = tf.convert_to_tensor(y_pred)
    if threshold is None:
        top = tf.reduce_max(y_pred, axis=-1, keepdims=True)
        hits = tf.logical_and(y_pred >= top, tf.abs(y_pred) > 1e-12)
    else:
        hits = y_pred > threshold
    truth = tf.cast(y_true, tf.int32)
    predicted = tf.cast(hits, tf.int32)
    if mode == "multiclass":
        return 1.0 - tf.cast(tf.math.count_nonzero(truth * predicted, axis=-1), tf.float32)
    return tf.cast(tf.math.count_nonzero(truth - predicted, axis=-1), tf.float32) / truth.shape[-1]


class HammingLoss(keras.metrics.MeanMetricWrapper):
    """TF Addons' HammingLoss (not in Keras 3): the mean of `hamming_loss` over the samples seen."""

    def __init__(self, mode: str = "multiclass", threshold: float | None = None, name: str = "hamming_loss",
                 dtype: Any = None) -> None:
        if mode not in ("multiclass", "multilabel"):
            raise ValueError(f"mode must be 'multiclass' or 'multilabel'; got {mode!r}")
        super().__init__(hamming_loss, name=name, dtype=dtype, mode=mode, threshold=threshold)


#: Metrics the face offers beyond keras.metrics (TF Addons' names TF.NET mirrors).
EXTRA_METRICS: dict[str, type] = {"HammingLoss": HammingLoss}


def build_metric(name: str, kwargs: dict[str, Any] | None = None) -> Any:
    """A keras.metrics object by class name (`Accuracy`, `TopKCategoricalAccuracy`, `AUC`, `F1Score`, ...); the
    face's `F1Score` and `FBetaScore` take `semantics` too (engine/tfnet_arithmetic.py)."""
    from tfnet_train.engine.tfnet_arithmetic import FACE_METRICS

    kwargs = _check_kwargs("metric", kwargs)
    classes = {**_classes(keras.metrics, keras.metrics.Metric), **EXTRA_METRICS, **FACE_METRICS}
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


def model_config(model: Any) -> dict[str, Any]:
    """`model.get_config()` (or a layer's) serialised as JSON text under "json"."""
    import json

    return {"json": json.dumps(model.get_config(), default=str)}
