"""Model, Functional and Sequential: Keras 3 models whose training engine mirrors TensorFlow.NET's (Model.cs)."""

from __future__ import annotations

import threading
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from tfnet_train import keras_internals
from tfnet_train.engine.compile import CompileMixin
from tfnet_train.engine.evaluate import EvaluateMixin
from tfnet_train.engine.export import ExportMixin
from tfnet_train.engine.fit import FitMixin
from tfnet_train.engine.on_batch import OnBatchMixin
from tfnet_train.engine.predict import PredictMixin
from tfnet_train.engine.save import SaveMixin
from tfnet_train.engine.train import TrainMixin
from tfnet_train.keras_internals import (
    KerasFunctional,
    KerasTrainer,
    TensorFlowTrainer,
    functional_init_arguments,
)
from tfnet_train.semantics import KERAS_PROFILE


class EngineState:
    """What the engine keeps per model, held outside Keras's attribute tracking so saved weights files stay
    identical to keras.Model's."""

    def __init__(self) -> None:
        strategy = tf.distribute.get_strategy()
        with strategy.scope(), tf.init_scope():
            self.train_counter = tf.Variable(0, dtype=tf.int64, trainable=False, name="train_counter",
                                             aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
        self.profile = KERAS_PROFILE
        self.fit_counting = False  # a fit's _train_counter counts its steps (fit reset it)
        self._trace_record = threading.local()  # per replica thread under a MirroredStrategy
        self.reset_functions()

    @property
    def active_trace(self) -> dict[str, Any] | None:
        """The record the traced step of this thread fills (None outside train_step_traced)."""
        return getattr(self._trace_record, "value", None)

    @active_trace.setter
    def active_trace(self, record: dict[str, Any] | None) -> None:
        self._trace_record.value = record

    def reset_functions(self) -> None:
        self.traced_function: Any = None
        self.replica_steps_function: Any = None
        self.test_rows_function: Any = None
        self.reset_function: Any = None
        self.reset_key: tuple[int, ...] = ()


def _inject_functional(cls: type) -> type:
    """``cls`` with the engine's Functional in place of the engine's Model among its bases (Keras injects its own
    Functional, which would rewrite tfnet_train.Model itself and break every later model)."""
    if cls is Model:
        return Functional
    if cls is Functional or not issubclass(cls, Model):
        return cls
    keras_internals.rebase(cls, _inject_functional)
    return cls


class Trainer(TrainMixin, FitMixin, EvaluateMixin, PredictMixin, OnBatchMixin, CompileMixin, TensorFlowTrainer):
    """The engine's trainer: Keras's TensorFlow trainer with TF.NET's compile, fit, evaluate, predict and
    train_step. ``Model`` is built on it; like Keras's, it can be mixed into a Keras layer
    (``class MyModel(Trainer, keras.layers.Layer)`` calling ``Trainer.__init__(self)``) to train that layer."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "_engine" not in vars(self):
            object.__setattr__(self, "_engine", EngineState())
        super().__init__(*args, **kwargs)

    # ----- Model.Metrics.cs ---------------------------------------------------------------------------------------

    def reset_metrics(self) -> None:
        """Keras's reset_metrics, in one compiled call: it runs at every epoch and every evaluate."""
        metrics = self.metrics
        variables = [v for m in metrics for v in m.variables]
        if self.run_eagerly or not variables:
            return super().reset_metrics()
        state = self._engine
        key = tuple(id(v) for v in variables)
        if state.reset_key != key:  # metrics built or added since: trace again

            def reset() -> None:
                for metric in metrics:
                    metric.reset_state()

            state.reset_function, state.reset_key = tf.function(reset), key
        state.reset_function()

    def get_metrics_result(self) -> dict[str, Any]:
        """Keras's metric results; under tfnet non-scalar results are reduced by mean (TF.NET's train_step)."""
        results = super().get_metrics_result()
        if self._engine.profile.tfnet_metrics:
            return {k: tf.reduce_mean(v) for k, v in results.items()}
        return results

    # ----- input checks -------------------------------------------------------------------------------------------

    def _assert_compile_called(self, method_name: str | None = None) -> None:
        if not self.compiled:
            raise ValueError(f"{method_name or 'this method'}() needs a compiled model: "
                             "call model.compile(optimizer=..., loss=..., metrics=[...]) first")

    def _model_inputs(self) -> list[Any] | None:
        try:
            inputs = self.inputs
        except (AttributeError, ValueError):
            return None
        return tf.nest.flatten(inputs) if inputs else None

    def _check_data(self, x: Any, y: Any) -> Any:
        """Clear errors for arrays that cannot fit the model's inputs (rank, feature sizes, input count); returns
        ``x``, under tfnet with arrays reshaped for inputs that only a Flatten reads (docs/semantics.md row 26)."""
        _check_not_ragged(x, "x")
        _check_not_ragged(y, "y")
        _check_same_samples(x, y)
        inputs = self._model_inputs()
        if inputs is None or x is None or isinstance(x, dict):
            return x
        several = isinstance(x, list | tuple) and len(inputs) > 1
        leaves = list(x) if several else [x]
        if not all(isinstance(leaf, np.ndarray | tf.Tensor) for leaf in leaves):
            return x
        if len(leaves) != len(inputs):
            raise ValueError(f"x must hold {len(inputs)} input arrays for this model, got {len(leaves)}")
        for i, (leaf, tensor) in enumerate(zip(leaves, inputs, strict=True)):
            shape = tuple(tensor.shape)
            name = "x" if len(inputs) == 1 else f"x[{i}]"
            if isinstance(leaf, np.ndarray) and leaf.dtype.kind in "USO" and "string" not in str(tensor.dtype):
                raise TypeError(f"{name} must hold numbers (float or int), got dtype {leaf.dtype}")
            actual = tuple(leaf.shape)
            rank = len(actual)
            if rank == 1 and len(shape) == 2 and (shape[1] in (1, None) or self._engine.profile.expands_1d):
                actual, rank = (actual[0], 1), 2  # expand_1d (tfnet) or Keras's input-rank adjustment
            if rank != len(shape) and self._flattened_alike(actual, tensor):
                leaves[i] = np.reshape(leaf, (-1, *shape[1:])) if isinstance(leaf, np.ndarray) else \
                    tf.reshape(leaf, (-1, *shape[1:]))
                continue
            if rank != len(shape):
                raise ValueError(
                    f"{name} has shape {tuple(actual)} (rank {rank}); the model expects rank {len(shape)} "
                    f"with shape {shape}"
                )
            for got, want in zip(actual[1:], shape[1:], strict=True):
                if want is not None and got is not None and int(got) != int(want):
                    raise ValueError(f"{name} has shape {tuple(actual)}; the model expects shape {shape}")
        return type(x)(leaves) if several else leaves[0]

    def _flattened_alike(self, actual: tuple[Any, ...], tensor: Any) -> bool:
        """True under tfnet when arrays of shape ``actual`` hold as many values per sample as ``tensor`` (a model
        input) and only Flatten layers read that input: TF.NET feeds such arrays unchecked (Functional.cs, Call)
        and Flatten gives the same rows as from the input's shape."""
        shape = tuple(tensor.shape)
        if not self._engine.profile.reshapes_inputs_for_flatten or None in shape[1:] or None in actual[1:]:
            return False
        if int(np.prod(actual[1:], dtype=np.int64)) != int(np.prod(shape[1:], dtype=np.int64)):
            return False
        readers = []
        for layer in self.layers:
            if isinstance(layer, keras.layers.InputLayer):
                continue
            try:
                layer_inputs = tf.nest.flatten(layer.input)
            except (AttributeError, ValueError):  # a layer called on several inputs: not a single reader
                return False
            if any(t is tensor for t in layer_inputs):
                readers.append(layer)
        return bool(readers) and all(isinstance(layer, keras.layers.Flatten) for layer in readers)

    def _check_targets(self, x: Any, y: Any) -> None:
        """ValueError for in-memory x without y when the compiled loss needs targets (Keras fails inside the step
        with "None values not supported"); a model that overrides train_step or compute_loss decides for itself."""
        if y is not None or keras_internals.compile_loss(self) is None:
            return
        if type(self).train_step is not TrainMixin.train_step or type(self).compute_loss is not TrainMixin.compute_loss:
            return
        leaves = list(x) if isinstance(x, list | tuple) else [x]
        if leaves and all(isinstance(leaf, np.ndarray | tf.Tensor) for leaf in leaves):
            raise ValueError(
                "y must be given with array x: the compiled loss compares predictions with targets, got y=None "
                "(pass y, or override compute_loss for a loss without targets)")

    def _check_batch(self, x: Any, y: Any, sample_weight: Any) -> Any:
        """``_check_data`` and the same number of samples in x, y and sample_weight; returns ``x`` as
        ``_check_data`` does."""
        x = self._check_data(x, y)
        n = int(tf.nest.flatten(x)[0].shape[0])
        for name, value in (("y", y), ("sample_weight", sample_weight)):
            if value is not None:
                m = int(tf.nest.flatten(value)[0].shape[0])
                if m != n:
                    raise ValueError(f"x and {name} must have the same number of samples, got x: {n}, {name}: {m}")
        return x


class Model(Trainer, SaveMixin, ExportMixin, keras.Model):
    """A Keras 3 model trained by the TF.NET-mirroring engine.

    ``Model(inputs=..., outputs=...)`` builds a functional model; subclasses define ``call``.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Model:
        if cls is Model and functional_init_arguments(args, kwargs):
            return Functional.__new__(Functional, *args, **kwargs)
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "_engine", EngineState())
        if functional_init_arguments(args, kwargs) and not isinstance(self, KerasFunctional):
            _inject_functional(type(self))  # a functional-style subclass: super().__init__(inputs=, outputs=)
            KerasTrainer.__init__(self)
            KerasFunctional.__init__(self, *args, **kwargs)
            return
        super().__init__(*args, **kwargs)


@keras.saving.register_keras_serializable(package="tfnet_train")
class Functional(Model, KerasFunctional):
    """A functional model (``Model(inputs=..., outputs=...)``)."""

    def __init__(self, inputs: Any, outputs: Any, name: str | None = None, **kwargs: Any) -> None:
        object.__setattr__(self, "_engine", EngineState())
        KerasTrainer.__init__(self)
        KerasFunctional.__init__(self, inputs, outputs, name=name, **kwargs)


@keras.saving.register_keras_serializable(package="tfnet_train")
class Sequential(Model, keras.Sequential):
    """A linear stack of Keras layers."""


keras.saving.register_keras_serializable(package="tfnet_train")(Model)


def _check_not_ragged(value: Any, name: str) -> None:
    """ValueError for a nested Python list whose rows differ in length (NumPy cannot make it an array)."""
    if not isinstance(value, list) or not value or not all(isinstance(row, list | tuple) for row in value):
        return
    try:
        np.asarray(value)
    except ValueError:
        lengths = sorted({len(row) for row in value})
        raise ValueError(
            f"{name} is a ragged list: its rows have lengths {lengths[:5]}{' ...' if len(lengths) > 5 else ''}; "
            f"expected rows of one length (a rectangular array)") from None


def _check_same_samples(x: Any, y: Any) -> None:
    """ValueError naming the array when an in-memory array of x or y is a scalar, or naming both counts when two
    of them (x[0] and x[1], x and y, ...) hold different numbers of samples."""
    arrays = []
    for name, value in (("x", x), ("y", y)):
        leaves = [v for v in tf.nest.flatten(value) if isinstance(v, np.ndarray | np.generic | tf.Tensor)]
        arrays += [(f"{name}[{i}]" if len(leaves) > 1 else name, leaf) for i, leaf in enumerate(leaves)]
    for label, leaf in arrays:
        if leaf.shape.rank == 0 if isinstance(leaf, tf.Tensor) else leaf.ndim == 0:
            raise ValueError(f"{label} must have a batch dimension, got a scalar")
    if len(arrays) < 2:
        return
    first, leaf = arrays[0]
    n = leaf.shape[0]
    for label, other in arrays[1:]:
        m = other.shape[0]
        if n is not None and m is not None and int(m) != int(n):
            raise ValueError(
                f"{first} and {label} must have the same number of samples, got {first}: {n}, {label}: {m}")
