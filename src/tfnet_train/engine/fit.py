"""Model.fit (Model.Fit.cs)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfnet_train.callbacks import CallbackList, History
from tfnet_train.engine.data import DataHandler, train_validation_split
from tfnet_train.semantics import TFNET


def logs_to_floats(logs: dict[str, Any]) -> dict[str, float]:
    """Tensor logs -> Python floats (one device read per value)."""
    return {k: float(v) for k, v in logs.items()}


class FitMixin:
    """fit(): epochs of train_step_function over a DataHandler, with callbacks and validation."""

    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: int | str = 1,
        callbacks: list | None = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        class_weight: dict[int, float] | None = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_freq: int = 1,
        validation_step: int = 10,
    ) -> History:
        """Train for ``epochs`` epochs; returns the History. ``validation_step`` is TF.NET's dataset schedule
        (used only under semantics='tfnet' with a tf.data validation set)."""
        self._assert_compile_was_called("fit")
        state = self._engine
        if verbose == "auto":
            verbose = 1
        if verbose not in (0, 1, 2):
            raise ValueError(f"verbose must be 0, 1, 2 or 'auto', got {verbose!r}")
        if not isinstance(validation_freq, int) or validation_freq < 1:
            raise ValueError(f"validation_freq must be an integer >= 1, got {validation_freq!r}")
        if x is None:
            raise ValueError("x must be given: got None")
        if validation_split and validation_data is None:
            if isinstance(x, tf.data.Dataset):
                raise ValueError("validation_split is not supported when x is a tf.data.Dataset")
            (x, y, sample_weight), validation_data = train_validation_split(
                [x, y, sample_weight], validation_split, state.semantics)
        elif validation_split and not 0.0 <= validation_split < 1.0:
            raise ValueError(f"validation_split must be in [0, 1), got {validation_split!r}")
        self._check_data(x, y)
        data_handler = DataHandler(
            x, y, sample_weight, batch_size=batch_size, steps_per_epoch=steps_per_epoch,
            initial_epoch=initial_epoch, epochs=epochs, shuffle=shuffle, class_weight=class_weight,
            steps_per_execution=state.steps_per_execution, semantics=state.semantics, seed=state.seed,
        )
        val_data = _validation_arrays(validation_data)
        if state.semantics == TFNET and val_data is not None and val_data[3]:
            _check_validation_step(validation_step)
        callback_list = CallbackList(
            callbacks, add_history=True, add_progbar=verbose != 0, model=self, verbose=verbose,
            epochs=epochs, steps=data_handler.inferred_steps,
        )
        return self._fit_internal(data_handler, epochs, callback_list, val_data, validation_freq,
                                  validation_step, batch_size)

    def _fit_internal(
        self, data_handler: DataHandler, epochs: int, callbacks: CallbackList, validation_data: Any,
        validation_freq: int, validation_step: int, batch_size: int | None,
    ) -> History:
        state = self._engine
        self.stop_training = False
        state.train_counter.assign(0)
        self.make_train_function()
        batch_hooks = callbacks.needs_train_batch_hooks
        callbacks.on_train_begin()
        epoch_logs: dict[str, float] = {}
        for epoch, iterator in data_handler.enumerate_epochs():
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            logs: dict[str, Any] = {}
            for step in data_handler.steps():
                if batch_hooks:
                    callbacks.on_train_batch_begin(step)
                logs = self.train_step_function(data_handler, iterator)
                if batch_hooks:
                    callbacks.on_train_batch_end(step + data_handler.step_increment, logs_to_floats(logs))
                if self.stop_training:
                    break
            if not logs:
                raise ValueError("fit ran no training step: the data produced no batches for this epoch")
            epoch_logs = logs_to_floats(logs)
            if validation_data is not None and self._should_validate(epoch, validation_freq, validation_step,
                                                                     validation_data):
                val_x, val_y, val_sw, _ = validation_data
                val_logs = self.evaluate(val_x, val_y, sample_weight=val_sw, verbose=0, return_dict=True,
                                         batch_size=self._validation_batch_size(batch_size), callbacks=callbacks)
                epoch_logs.update({f"val_{k}": v for k, v in val_logs.items()})
            elif validation_data is not None and state.semantics == TFNET and validation_data[3]:
                continue  # TF.NET's dataset path skips on_epoch_end for epochs it does not validate
            callbacks.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        callbacks.on_train_end(epoch_logs)
        return self.history

    def _should_validate(self, epoch: int, validation_freq: int, validation_step: int, validation_data: Any) -> bool:
        if self._engine.semantics == TFNET:
            if validation_data[3]:  # a tf.data.Dataset: TF.NET validates at epochs 10, 20, ... only
                return validation_step > 0 and epoch != 0 and epoch % validation_step == 0
            return True
        return (epoch + 1) % validation_freq == 0

    def _validation_batch_size(self, batch_size: int | None) -> int | None:
        return 32 if self._engine.semantics == TFNET else batch_size


def _check_validation_step(validation_step: Any) -> None:
    """TF.NET's dataset schedule needs validation_step >= 1 (0 divides by zero there at the end of epoch 0)."""
    if isinstance(validation_step, bool) or not isinstance(validation_step, int) or validation_step < 1:
        raise ValueError(
            f"validation_step must be an integer >= 1 with a tf.data validation set under semantics='tfnet', "
            f"got {validation_step!r} (TensorFlow.NET divides the epoch index by it)"
        )


def _validation_arrays(validation_data: Any) -> tuple[Any, Any, Any, bool] | None:
    """(x, y, sample_weight, is_dataset) from validation_data, or None."""
    if validation_data is None:
        return None
    if isinstance(validation_data, tf.data.Dataset):
        return validation_data, None, None, True
    if isinstance(validation_data, list | tuple) and len(validation_data) in (2, 3):
        x, y = validation_data[0], validation_data[1]
        sw = validation_data[2] if len(validation_data) == 3 else None
        return x, y, sw, False
    raise ValueError(
        "validation_data must be (x, y), (x, y, sample_weight) or a tf.data.Dataset, "
        f"got {type(validation_data).__name__}" + (f" of length {len(validation_data)}"
                                                   if isinstance(validation_data, list | tuple) else "")
    )

