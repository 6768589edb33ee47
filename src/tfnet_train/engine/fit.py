"""Model.fit (Model.Fit.cs): epochs of train_step_function over a DataHandler, with Keras's callbacks."""

from __future__ import annotations

import warnings
from typing import Any

import keras
import numpy as np
import tensorflow as tf
from keras.utils import unpack_x_y_sample_weight

from tfnet_train import keras_internals
from tfnet_train.callbacks import CallbackList
from tfnet_train.callbacks.tensorboard import graph_writers, write_train_graph
from tfnet_train.engine.data import DataHandler, expand_1d, train_validation_split
from tfnet_train.engine.data.errors import DATA_ERRORS
from tfnet_train.engine.data.handler import check_class_weight_classes


def check_verbose(verbose: Any) -> int | str:
    if verbose not in (0, 1, 2, "auto"):
        raise ValueError(f"verbose must be 0, 1, 2 or 'auto', got {verbose!r}")
    return verbose


def skip_needed(model: Any) -> bool:
    """Whether a backup asks fit to pass steps of its first epoch (they are passed one execution at a time)."""
    return bool(getattr(model, "_initial_step", 0))


def capped_steps(steps: int | None) -> int | None:
    """``steps`` under ``keras.config.max_steps_per_epoch()`` (a debugging cap), as Keras's EpochIterator caps it."""
    cap = keras.config.max_steps_per_epoch()
    if cap and (not steps or cap < steps):
        warnings.warn(f"Limiting steps_per_epoch to {cap}", stacklevel=3)
        return cap
    return steps


def _check_count(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


class FitMixin:
    """fit(): the epoch loop; validation through evaluate."""

    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: int | str = "auto",
        callbacks: list | None = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        class_weight: dict[int, float] | None = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        validation_batch_size: int | None = None,
        validation_freq: int = 1,
        validation_step: int = 10,
    ) -> Any:
        """Train for ``epochs`` epochs; returns the History. ``validation_step`` is TF.NET's dataset schedule
        (used only under semantics='tfnet' with a tf.data validation set).

        Every argument is checked, and the data and validation data are matched against the model, before any
        state changes; a fit that fails later (a bad batch, a callback that raises; not an interrupt) puts every
        weight, optimizer variable and ``_train_counter`` back to their values before the call.
        """
        self._assert_compile_called("fit")
        profile = self._engine.profile
        check_verbose(verbose)
        epochs = _check_count("epochs", epochs, 0)
        initial_epoch = _check_count("initial_epoch", initial_epoch, 0)
        max_epochs = keras.config.max_epochs()  # Keras's debugging cap on epochs
        if max_epochs and max_epochs < epochs:
            warnings.warn(f"Limiting epochs to {max_epochs}", stacklevel=2)
            epochs = max_epochs
        if not isinstance(validation_freq, list):
            _check_count("validation_freq", validation_freq, 1)
        if x is None:
            raise ValueError("x must be given: got None")
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = train_validation_split(
                [x, y, sample_weight], validation_split, profile)
        elif validation_split and not 0.0 <= validation_split < 1.0:
            raise ValueError(f"validation_split must be in [0, 1), got {validation_split!r}")
        x = self._check_data(x, y)
        self._check_targets(x, y)
        data_handler = DataHandler(
            x, y, sample_weight, batch_size=batch_size, steps_per_epoch=capped_steps(steps_per_epoch), shuffle=shuffle,
            class_weight=class_weight, steps_per_execution=self.steps_per_execution, profile=profile,
            distribute_strategy=self.distribute_strategy,
        )
        validation = _Validation.of(validation_data, profile, validation_step, validation_steps,
                                    validation_batch_size or batch_size)
        if validation is not None:
            try:
                validation.x = self._check_data(validation.x, validation.y)
            except ValueError as exc:
                raise ValueError(f"validation_data: {exc}") from None
        self._build_for(data_handler)
        check_class_weight_classes(class_weight, self)
        if not isinstance(callbacks, CallbackList):
            callbacks = CallbackList(callbacks, add_history=True, add_progbar=verbose != 0, verbose=verbose,
                                     epochs=epochs, steps=data_handler.num_batches, model=self)
        snapshot, counter = self._variables_snapshot(), int(self._train_counter.numpy())
        self._engine.fit_counting = False  # True once _fit_internal has reset _train_counter to count this fit
        try:
            return self._fit_internal(data_handler, initial_epoch, epochs, callbacks, validation, validation_freq)
        except Exception as exc:
            # A fit that fails before its first step changes nothing (weights, optimizer variables, _train_counter),
            # nor does one that a data error stops in data read while it trains (a dataset, a stream: bad input
            # changes nothing); one interrupted otherwise keeps its steps, as Keras's fit does (BackupAndRestore
            # resumes from there).
            stepped = self._engine.fit_counting and int(self._train_counter.numpy()) > 0
            if not stepped or (
                    data_handler.reads_while_training and isinstance(exc, DATA_ERRORS)):
                self._restore_variables(snapshot)
                self._train_counter.assign(counter)
            raise

    def _variables_snapshot(self) -> list[tuple[Any, np.ndarray]]:
        """Every weight and built optimizer variable with a copy of its value (what a failed call restores)."""
        variables = list(self.weights)
        optimizer = getattr(self, "optimizer", None)
        if optimizer is not None and getattr(optimizer, "built", False):
            variables += list(optimizer.variables)
        return [(v, np.array(v.numpy(), copy=True)) for v in variables]

    @staticmethod
    def _restore_variables(snapshot: list[tuple[Any, np.ndarray]]) -> None:
        for variable, value in snapshot:
            variable.assign(value)

    def _build_for(self, data_handler: DataHandler) -> None:
        """Create every variable (model, metrics, optimizer) before the first trace, as Keras does under a
        strategy: variables created while tracing make tf.function trace the step twice."""
        if not hasattr(data_handler.data_adapter, "first_batch"):
            self._maybe_symbolic_build(iterator=data_handler)
            data_handler.reset()
            return
        batch = data_handler.data_adapter.first_batch()  # in-memory arrays: no pass over distributed input
        if self._engine.profile.expands_1d:
            batch = expand_1d(batch)
        if data_handler.fast:
            keras_internals.symbolic_build(self, data_batch=batch)
        else:
            self._maybe_symbolic_build(data_batch=batch)

    def _fit_internal(self, data_handler: DataHandler, initial_epoch: int, epochs: int, callbacks: CallbackList,
                      validation: _Validation | None, validation_freq: Any) -> Any:
        self.stop_training = False
        self.make_train_function()
        callbacks.on_train_begin()
        self._engine.train_counter.assign(0)  # TF.NET: once per fit (here after on_train_begin could fail)
        self._engine.fit_counting = True
        batch_hooks = callbacks.needs_batch_hooks("train")
        graphs = graph_writers(callbacks)
        if not batch_hooks and not skip_needed(self):
            data_handler.run_whole_epochs(training=True)
        training_logs = None
        logs: Any = {}
        initial_epoch = keras_internals.initial_epoch(self) or initial_epoch  # BackupAndRestore restored it
        skip = getattr(self, "_initial_step", 0)  # and, ours, the steps of that epoch its backup holds
        self._initial_step = 0
        for epoch in range(initial_epoch, epochs):
            logs = {}
            if data_handler.whole_epochs:  # the reset runs inside the epoch's one call
                data_handler.reset_metrics_first = True
            else:
                self.reset_metrics()
            data_handler.epoch = epoch
            callbacks.on_epoch_begin(epoch)
            with data_handler.catch_stop_iteration():
                for block in data_handler:
                    if block.end < skip:
                        data_handler.skip(block)
                        continue
                    if batch_hooks:
                        callbacks.on_train_batch_begin(block.begin)
                    logs = self.train_step_function(data_handler, block)
                    if graphs:  # TensorBoard's training graph, once the compiled call exists
                        write_train_graph(graphs, self, data_handler, block)
                        graphs = []
                    if batch_hooks:
                        callbacks.on_train_batch_end(block.end, logs)
                    if self.stop_training:
                        break
            skip = 0
            if data_handler.fast:  # one device: the last step's results are the epoch's metrics (no eager re-read)
                epoch_logs = dict(logs)
            else:  # metric variables read across every replica and worker
                epoch_logs = dict(keras_internals.metrics_result_or_logs(self, logs)) if logs else {}
            epoch_end = True
            if validation is not None:
                if validation.due(epoch, validation_freq, lambda e, f: keras_internals.should_eval(self, e, f)):
                    val_logs = self.evaluate(validation.x, validation.y, sample_weight=validation.sample_weight,
                                             batch_size=validation.batch_size, steps=validation.steps,
                                             callbacks=callbacks, return_dict=True, verbose=0)
                    epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
                else:  # TF.NET's dataset path skips on_epoch_end for epochs it does not validate
                    epoch_end = not validation.skips_epoch_end
            if epoch_end:
                callbacks.on_epoch_end(epoch, epoch_logs)
                training_logs = epoch_logs
            if self.stop_training:  # a callback's stop ends the fit, whether or not on_epoch_end ran
                break
        if hasattr(self.optimizer, "finalize_variable_values") and epochs > 0:
            self.optimizer.finalize_variable_values(self.trainable_weights)
        callbacks.on_train_end(logs=training_logs)
        return self.history


class _Validation:
    """validation_data unpacked, with the profile's schedule and batch size."""

    def __init__(self, x: Any, y: Any, sample_weight: Any, is_dataset: bool, profile: Any, validation_step: int,
                 steps: int | None, batch_size: int | None) -> None:
        self.x, self.y, self.sample_weight = x, y, sample_weight
        self.steps = steps
        self.tfnet_dataset = is_dataset and profile.dataset_validation_schedule
        self.tfnet_arrays = not is_dataset and profile.validates_every_epoch_with_batch_32
        self.batch_size = 32 if self.tfnet_arrays else batch_size
        self.validation_step = validation_step
        if self.tfnet_dataset and (isinstance(validation_step, bool) or not isinstance(validation_step, int)
                                   or validation_step < 1):
            raise ValueError(
                f"validation_step must be an integer >= 1 with a tf.data validation set under semantics='tfnet', "
                f"got {validation_step!r} (TensorFlow.NET divides the epoch index by it)"
            )

    @classmethod
    def of(cls, validation_data: Any, profile: Any, validation_step: int, steps: int | None,
           batch_size: int | None) -> _Validation | None:
        if validation_data is None:
            return None
        if isinstance(validation_data, tf.data.Dataset):
            return cls(validation_data, None, None, True, profile, validation_step, steps, batch_size)
        if isinstance(validation_data, list | tuple) and len(validation_data) not in (2, 3):
            raise ValueError(
                "validation_data must be (x, y), (x, y, sample_weight) or a dataset, "
                f"got a {type(validation_data).__name__} of length {len(validation_data)}")
        x, y, sample_weight = unpack_x_y_sample_weight(validation_data)
        return cls(x, y, sample_weight, False, profile, validation_step, steps, batch_size)

    @property
    def skips_epoch_end(self) -> bool:
        return self.tfnet_dataset

    def due(self, epoch: int, validation_freq: Any, should_eval: Any) -> bool:
        if self.tfnet_dataset:  # TF.NET validates a dataset at epochs 10, 20, ... only
            return epoch != 0 and epoch % self.validation_step == 0
        if self.tfnet_arrays:
            return True
        return should_eval(epoch, validation_freq)
