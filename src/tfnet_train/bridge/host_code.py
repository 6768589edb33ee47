"""C# code inside compiled TensorFlow: host delegates, layers, models, losses and metrics, called while tracing.

A host object is a .NET object the C# library hands over (`TfNetTrain.TensorFlowNet.HostCode`). Python calls its
methods only while TensorFlow traces (`tf.function`, Keras's symbolic build, the engine's compiled step): the C#
code runs on the Python thread that traces, its `tf.*` calls run inline and add ops to the graph, and later calls
run the graph without entering C#. Each wrapper counts how often it entered the host (`host_calls`), so tests and
benchmarks can show that C# runs once per input signature.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import keras
import tensorflow as tf

from tfnet_train.engine import Model

_tracing = threading.local()


def tracing_name() -> str | None:
    """The name of the host function, layer or model whose C# code runs on this thread now (None outside)."""
    stack = getattr(_tracing, "stack", None)
    return stack[-1] if stack else None


@contextlib.contextmanager
def _entering(name: str) -> Iterator[None]:
    stack = getattr(_tracing, "stack", None)
    if stack is None:
        stack = _tracing.stack = []
    stack.append(name)
    try:
        yield
    finally:
        stack.pop()


def check_eager(value: Any, what: str) -> None:
    """TypeError when ``value`` is a symbolic tensor: ``what`` (``tensor.numpy()``) needs an eager value."""
    if isinstance(value, tf.Tensor | tf.Variable) and not hasattr(value, "_numpy") and not tf.executing_eagerly():
        name = tracing_name()
        where = f"while '{name}' is traced" if name else "inside a traced function"
        raise TypeError(f"{what} needs an eager tensor; got the symbolic tensor {value.name!r} {where}. Return it from "
                        "the function (or log it with tf ops) and read it after the call")


def _flat(value: Any, what: str, name: str) -> list[Any]:
    """The host's result as a list of tensors; TypeError naming the function when it is not tensors."""
    items = list(value) if isinstance(value, list | tuple) else [value]
    for i, item in enumerate(items):
        if item is None or not (tf.is_tensor(item) or isinstance(item, tf.Variable | keras.Variable)):
            raise TypeError(f"{what} '{name}' must return tensors; item {i} of its result is "
                            f"{'null' if item is None else type(item).__name__}")
    return items


def _signature(specs: Sequence[tuple[Sequence[int], str]] | None) -> list[tf.TensorSpec] | None:
    if specs is None:
        return None
    return [tf.TensorSpec(None if shape is None else [None if d < 0 else int(d) for d in shape], tf.as_dtype(dtype))
            for shape, dtype in specs]


class HostFunction:
    """``tf.function`` over a host delegate: ``host.Invoke(tensors)`` runs once per input signature.

    ``outputs`` is the number of tensors the delegate returns (-1: any list, `Tensors`); a result of another
    structure is a TypeError naming the function. ``input_signature`` ((shape, dtype) pairs, -1 for any size)
    fixes the accepted inputs; a call outside it is a ValueError naming the function and the signature.
    """

    def __init__(self, host: Any, name: str, outputs: int, input_signature: Any = None,
                 jit_compile: bool = False, reduce_retracing: bool = False) -> None:
        self.name = str(name)
        self.host_calls = 0
        self._host = host
        self._outputs = int(outputs)
        self._signature = _signature(input_signature)

        def traced(*args: Any) -> Any:
            self.host_calls += 1
            with _entering(self.name):
                result = host.Invoke(list(args))
            items = _flat(result, "tf.function", self.name)
            if self._outputs >= 0 and len(items) != self._outputs:
                raise TypeError(f"tf.function '{self.name}' must return {self._outputs} tensor(s); it returned "
                                f"{len(items)}")
            return items[0] if self._outputs == 1 else list(items)

        traced.__name__ = "".join(c if c.isalnum() else "_" for c in self.name) or "host_function"
        self._function = tf.function(traced, input_signature=self._signature, autograph=False,
                                     jit_compile=bool(jit_compile), reduce_retracing=bool(reduce_retracing))

    def __call__(self, args: Sequence[Any]) -> Any:
        args = [a if tf.is_tensor(a) or isinstance(a, tf.Variable) else tf.convert_to_tensor(a) for a in args]
        if self._signature is not None:
            self._check_signature(args)
        return self._function(*args)

    def _check_signature(self, args: list[Any]) -> None:
        fits = len(args) == len(self._signature) and all(
            s.is_compatible_with(tf.TensorSpec(a.shape, a.dtype)) for s, a in zip(self._signature, args))
        if not fits:
            expected = ", ".join(f"{s.shape} {s.dtype.name}" for s in self._signature)
            got = ", ".join(f"{a.shape} {a.dtype.name}" for a in args)
            raise ValueError(f"tf.function '{self.name}' was called with ({got}); its input_signature accepts "
                             f"({expected})")

    @property
    def traces(self) -> int:
        """How many concrete graphs TensorFlow holds for this function."""
        return int(self._function.experimental_get_tracing_count())


def host_function(host: Any, name: str, outputs: int, input_signature: Any = None, jit_compile: bool = False,
                  reduce_retracing: bool = False) -> HostFunction:
    """A HostFunction (see there)."""
    return HostFunction(host, name, outputs, input_signature, jit_compile, reduce_retracing)


def call_function(function: HostFunction, args: Sequence[Any]) -> Any:
    """``function(*args)``: one tensor, or a list of them."""
    return function(args)


def _training(training: Any) -> bool | None:
    return None if training is None else bool(training)


class HostLayer(keras.layers.Layer):
    """A Keras layer whose ``build`` and ``call`` are a C# `Layer` subclass's ``build`` and ``Call``."""

    def __init__(self, host: Any, name: str | None = None, trainable: bool = True, dtype: Any = None,
                 has_build: bool = True, layers: Sequence[Any] = ()) -> None:
        super().__init__(name=name, trainable=trainable, dtype=dtype)
        self._host = host
        self.host_calls = 0
        self._has_build = bool(has_build)
        self._host_layers = list(layers)  # the Keras layers the C# object owns: their weights are this layer's

    def build(self, input_shape: Any) -> None:
        if self._has_build:
            with _entering(self.name):
                self._host.Build(input_shape)
        self.built = True

    def call(self, inputs: Any, training: Any = None) -> Any:
        self.host_calls += 1
        with _entering(self.name):
            result = self._host.Call(inputs, _training(training))
        items = _flat(result, "Call of layer", self.name)
        return items[0] if len(items) == 1 else items

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError(f"layer '{self.name}' is a C# class: save its weights (save_weights) and build it "
                                  "again from C# to load them")


class HostModel(Model):
    """An engine model whose ``call`` (and, when the C# class overrides it, ``train_step``) is C# code."""

    def __init__(self, host: Any, name: str | None = None, trainable: bool = True,
                 has_train_step: bool = False, layers: Sequence[Any] = ()) -> None:
        super().__init__(name=name, trainable=trainable)
        self._host = host
        self.host_calls = 0
        self._host_layers = list(layers)  # the Keras layers the C# object owns: their weights are this model's
        self._has_train_step = bool(has_train_step)

    def call(self, inputs: Any, training: Any = None) -> Any:
        self.host_calls += 1
        with _entering(self.name):
            result = self._host.Call(inputs, bool(training) if training is not None else False)
        items = _flat(result, "Call of model", self.name)
        return items[0] if len(items) == 1 else items

    def train_step(self, data: Any) -> Any:
        if not self._has_train_step:
            return super().train_step(data)
        x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
        self.host_calls += 1
        with _entering(self.name):
            logs = self._host.TrainStep(x, y, sample_weight)
        if not isinstance(logs, dict):
            logs = {str(k): v for k, v in dict(logs).items()}
        return logs

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError(f"model '{self.name}' is a C# class: save its weights (save_weights) and build it "
                                  "again from C# to load them")


class HostBuiltModel(HostModel):
    """A HostModel whose C# class overrides ``build``: its own weights come from ``add_weight`` there (Keras then
    builds the layers it holds on their first call, as for a Python model that overrides ``build``)."""

    def build(self, input_shape: Any) -> None:
        with _entering(self.name):
            self._host.Build(input_shape)


def host_layer(host: Any, name: str | None, trainable: bool, dtype: str | None, has_build: bool,
               layers: Sequence[Any]) -> HostLayer:
    """A HostLayer for a C# `Layer` subclass owning ``layers``."""
    return HostLayer(host, name, trainable, dtype, has_build, layers)


def host_model(host: Any, name: str | None, trainable: bool, has_train_step: bool, layers: Sequence[Any],
               has_build: bool = False) -> HostModel:
    """A HostModel for a C# `Model` subclass owning ``layers`` (a HostBuiltModel when it overrides ``build``)."""
    kind = HostBuiltModel if has_build else HostModel
    return kind(host, name, trainable, has_train_step, layers)


class HostLoss(keras.losses.Loss):
    """A Keras loss whose per-sample values are a C# `Loss` subclass's ``Apply(y_true, y_pred)``; Keras reduces
    and weighs them as for its own losses."""

    def __init__(self, host: Any, name: str | None = None, reduction: str = "sum_over_batch_size") -> None:
        super().__init__(name=name or "host_loss", reduction=reduction)
        self._host = host
        self.host_calls = 0

    def call(self, y_true: Any, y_pred: Any) -> Any:
        self.host_calls += 1
        with _entering(self.name):
            result = self._host.Apply(y_true, y_pred)
        return _flat(result, "Apply of loss", self.name)[0]

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "reduction": self.reduction}


def host_loss(host: Any, name: str | None, reduction: str | None) -> HostLoss:
    """A HostLoss for a C# `Loss` subclass (TF.NET's reduction "auto" is Keras's "sum_over_batch_size")."""
    return HostLoss(host, name, "sum_over_batch_size" if reduction in (None, "auto") else reduction)


class HostMetric(keras.metrics.Metric):
    """A Keras metric whose state lives in variables the C# `Metric` subclass adds, and whose ``update_state``,
    ``result`` and ``reset_state`` are its C# methods."""

    def __init__(self, host: Any, name: str | None = None, dtype: str | None = None) -> None:
        super().__init__(name=name or "host_metric", dtype=dtype)
        self._host = host
        self.host_calls = 0

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        self.host_calls += 1
        with _entering(self.name):
            self._host.UpdateState(y_true, y_pred, sample_weight)

    def result(self) -> Any:
        with _entering(self.name):
            return _flat(self._host.Result(), "result of metric", self.name)[0]

    def reset_state(self) -> None:
        with _entering(self.name):
            self._host.ResetStates()

    def get_config(self) -> dict[str, Any]:
        return {"name": self.name, "dtype": self.dtype}


def host_metric(host: Any, name: str | None, dtype: str | None) -> HostMetric:
    """A HostMetric for a C# `Metric` subclass."""
    return HostMetric(host, name, dtype)


def metric_update_values(metric: keras.metrics.Metric, values: Any, sample_weight: Any = None) -> None:
    """``metric.update_state(values, sample_weight)`` for a metric of values (Mean, Sum)."""
    metric.update_state(values, sample_weight=sample_weight)


def metric_reset_default(metric: keras.metrics.Metric) -> None:
    """Keras's own ``reset_state``: every state variable back to zero (a C# metric that does not override it)."""
    keras.metrics.Metric.reset_state(metric)


def metric_add_weight(metric: keras.metrics.Metric, name: str, shape: Sequence[int], dtype: str | None,
                      initializer: str) -> Any:
    """A state variable of a host metric (Keras's ``add_variable``)."""
    return metric.add_variable(shape=tuple(shape), initializer=initializer, dtype=dtype, name=name)


def layer_add_weight(layer: keras.layers.Layer, name: str, shape: Sequence[int], dtype: str | None,
                     initializer: Any, trainable: bool) -> Any:
    """``layer.add_weight(...)`` for a host layer or model (initializer: a Keras name, or None for Keras's default)."""
    return layer.add_weight(shape=tuple(shape), initializer=initializer, dtype=dtype, trainable=bool(trainable),
                            name=name)


def host_calls(obj: Any) -> int:
    """How often ``obj`` (a host function, layer, model, loss or metric) entered C#."""
    return int(obj.host_calls)


def loss_values(loss: keras.losses.Loss, y_true: Any, y_pred: Any) -> Any:
    """The per-sample values of a Keras loss (its ``call``, before reduction and weighting)."""
    return tf.convert_to_tensor(loss.call(tf.convert_to_tensor(y_true), tf.convert_to_tensor(y_pred)))


def default_train_step(model: Model, x: Any, y: Any, sample_weight: Any = None) -> dict[str, Any]:
    """The engine's own ``train_step`` (the base a C# override may call)."""
    return dict(Model.train_step(model, keras.utils.pack_x_y_sample_weight(x, y, sample_weight)))


def compute_loss(model: Model, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> Any:
    """``model.compute_loss(...)`` for a C# train_step override."""
    return model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight)


def compute_metrics(model: Model, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> dict[str, Any]:
    """``model.compute_metrics(...)``: the compiled metrics updated, every metric's result by name."""
    return dict(model.compute_metrics(x, y, y_pred, sample_weight))


def model_shape(model: keras.Model, name: str) -> tuple[Any, ...]:
    """``model.output_shape`` or ``model.input_shape`` (the first one's for several)."""
    if name not in ("output_shape", "input_shape"):
        raise ValueError(f"name must be 'output_shape' or 'input_shape'; got {name!r}")
    shape = getattr(model, name)
    if isinstance(shape, list) and shape and isinstance(shape[0], tuple | list):
        shape = shape[0]
    return tuple(shape)


def layer_variables(layer: keras.layers.Layer, which: str) -> list[Any]:
    """``layer.weights``, ``trainable_weights`` or ``non_trainable_weights``."""
    if which not in ("weights", "trainable_weights", "non_trainable_weights"):
        raise ValueError(f"which must be weights, trainable_weights or non_trainable_weights; got {which!r}")
    return list(getattr(layer, which))


def composed_layer(class_name: str, kwargs: dict[str, Any] | None, names: Sequence[str], layers: Sequence[Any]
                   ) -> keras.layers.Layer:
    """``keras.layers.<class_name>(**kwargs, name=layer, ...)`` where each of ``names`` is given a layer object (an
    RNN's cell, the cells of StackedRNNCells, the layer Bidirectional wraps)."""
    from tfnet_train.bridge.specs import build_layer

    objects = {name: list(value) if isinstance(value, list | tuple) else value for name, value in zip(names, layers)}
    return build_layer(class_name, {**(kwargs or {}), **objects})


def cell_call(cell: keras.layers.Layer, inputs: Sequence[Any], states: Sequence[Any], training: bool | None = None
              ) -> list[Any]:
    """One step of a recurrent cell: the output, then every new state (flattened, as TF.NET's Tensors hold them)."""
    x = inputs[0] if len(inputs) == 1 else list(inputs)
    kwargs = {} if training is None else {"training": bool(training)}
    output, new_states = cell(x, list(states), **kwargs)
    return [output, *keras.tree.flatten(new_states)]
