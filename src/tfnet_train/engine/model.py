"""Model, Functional and Sequential: Keras 3 models whose training engine mirrors TensorFlow.NET's (Model.cs)."""

from __future__ import annotations

from typing import Any

import keras
import tensorflow as tf
from keras.src.models.functional import Functional as KerasFunctional
from keras.src.models.model import functional_init_arguments
from keras.src.trainers.trainer import Trainer as KerasTrainer

from tfnet_train.engine.compile import CompileMixin
from tfnet_train.engine.evaluate import EvaluateMixin
from tfnet_train.engine.fit import FitMixin
from tfnet_train.engine.on_batch import OnBatchMixin
from tfnet_train.engine.predict import PredictMixin
from tfnet_train.engine.train import TrainMixin


class EngineState:
    """Everything the engine keeps per model, held outside Keras's attribute tracking so saved weights
    files stay identical to keras.Model's."""

    def __init__(self) -> None:
        self.strategy = tf.distribute.get_strategy() if tf.distribute.has_strategy() else None
        with tf.init_scope():
            self.train_counter = tf.Variable(0, dtype=tf.int64, trainable=False, name="train_counter")
        self.optimizer: Any = None
        self.compiled_loss: Any = None
        self.compiled_metrics: Any = None
        self.semantics = "keras"
        self.run_eagerly = False
        self.jit_compile = False
        self.steps_per_execution = 1
        self.is_compiled = False
        self.seed: int | None = None
        self.active_trace: dict[str, Any] | None = None
        self.reset_functions()

    def reset_functions(self) -> None:
        self.train_function = None
        self.train_block_function = None
        self.traced_function = None
        self.test_function = None
        self.predict_function = None
        self.reset_function = None


class Model(TrainMixin, FitMixin, EvaluateMixin, PredictMixin, OnBatchMixin, CompileMixin, keras.Model):
    """A Keras 3 model trained by the TF.NET-mirroring engine.

    ``Model(inputs=..., outputs=...)`` builds a functional model; subclasses define ``call``.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> Model:
        if cls is Model and functional_init_arguments(args, kwargs):
            return Functional.__new__(Functional, *args, **kwargs)
        return super().__new__(cls, *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "_engine", EngineState())
        super().__init__(*args, **kwargs)

    # ----- Model.Metrics.cs ---------------------------------------------------------------------------------------

    @property
    def metrics(self) -> list[keras.metrics.Metric]:
        """The 'loss' metric followed by the compiled metrics."""
        state = self._engine
        if not state.is_compiled:
            return []
        return [state.compiled_loss.loss_metric, *state.compiled_metrics.metrics]

    @property
    def metrics_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def reset_metrics(self) -> None:
        """Reset the loss metric and every compiled metric (one compiled call: it runs once per epoch)."""
        state = self._engine
        if not state.is_compiled:
            return
        if state.reset_function is None:
            metrics = self.metrics

            def reset() -> None:
                for metric in metrics:
                    metric.reset_state()

            state.reset_function = reset if state.run_eagerly else tf.function(reset)
        state.reset_function()

    # ----- input checks -------------------------------------------------------------------------------------------

    def _input_shapes(self) -> list[tuple[int | None, ...]] | None:
        inputs = getattr(self, "inputs", None)
        if not inputs:
            return None
        try:
            return [tuple(t.shape) for t in tf.nest.flatten(inputs)]
        except (AttributeError, TypeError):
            return None

    def _check_data(self, x: Any, y: Any) -> None:
        """Clear errors for data that cannot fit the model's inputs (rank, feature sizes, input count)."""
        if isinstance(x, tf.data.Dataset):
            return
        expected = self._input_shapes()
        if expected is None:
            return
        leaves = x if isinstance(x, list | tuple) and len(expected) > 1 else [x]
        if isinstance(x, dict):
            leaves = list(x.values())
        if len(leaves) != len(expected):
            raise ValueError(f"x must hold {len(expected)} input arrays for this model, got {len(leaves)}")
        for i, (leaf, shape) in enumerate(zip(leaves, expected, strict=True)):
            actual = tuple(getattr(leaf, "shape", None) or ())
            if not actual and not hasattr(leaf, "shape"):
                try:
                    import numpy as np

                    actual = np.shape(leaf)
                except Exception:
                    continue
            rank = len(actual)
            if rank == 1 and len(shape) == 2:  # expand_1d turns (n,) into (n, 1)
                actual, rank = (actual[0], 1), 2
            name = "x" if len(expected) == 1 else f"x[{i}]"
            if rank != len(shape):
                raise ValueError(
                    f"{name} has shape {tuple(actual)} (rank {rank}); the model expects rank {len(shape)} "
                    f"with shape {shape}"
                )
            for got, want in zip(actual[1:], shape[1:], strict=True):
                if want is not None and got is not None and int(got) != int(want):
                    raise ValueError(f"{name} has shape {tuple(actual)}; the model expects shape {shape}")

    def _check_batch(self, x: Any, y: Any, sample_weight: Any) -> None:
        self._check_data(x, y)
        n = int(tf.nest.flatten(x)[0].shape[0])
        for name, value in (("y", y), ("sample_weight", sample_weight)):
            if value is not None:
                m = int(tf.nest.flatten(value)[0].shape[0])
                if m != n:
                    raise ValueError(f"x and {name} must have the same number of samples, got x: {n}, {name}: {m}")


class Functional(Model, KerasFunctional):
    """A functional model (``Model(inputs=..., outputs=...)``)."""

    def __init__(self, inputs: Any, outputs: Any, name: str | None = None, **kwargs: Any) -> None:
        object.__setattr__(self, "_engine", EngineState())
        KerasTrainer.__init__(self)
        KerasFunctional.__init__(self, inputs, outputs, name=name, **kwargs)


class Sequential(Model, keras.Sequential):
    """A linear stack of Keras layers."""
