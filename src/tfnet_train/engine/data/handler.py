"""DataHandler: epochs, steps per epoch and steps per execution over an adapter (DataHandler.cs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import tensorflow as tf

from tfnet_train.engine.data.adapter import Batch, DataAdapter
from tfnet_train.engine.data.dataset import DatasetAdapter
from tfnet_train.engine.data.tensor_like import TensorLikeDataAdapter, to_tensor


class EpochIterator:
    """One epoch's blocks with one-block lookahead, so the step loop knows when data runs out."""

    def __init__(self, blocks: Iterator[tuple[int, bool, Batch]], limit: int | None) -> None:
        self._blocks = blocks
        self._limit = limit
        self._taken = 0
        self._next: tuple[int, bool, Batch] | None = None

    def has_next(self) -> bool:
        if self._limit is not None and self._taken >= self._limit:
            return False
        if self._next is None:
            self._next = next(self._blocks, None)
        return self._next is not None

    def __iter__(self) -> EpochIterator:
        return self

    def __next__(self) -> tuple[int, bool, Batch]:
        if not self.has_next():
            raise StopIteration
        block, self._next = self._next, None
        assert block is not None
        if self._limit is not None and self._taken + block[0] > self._limit:
            block = _first_steps(block, self._limit - self._taken)
        self._taken += block[0]
        return block


def _first_steps(block: tuple[int, bool, Batch], count: int) -> tuple[int, bool, Batch]:
    steps, stacked, data = block
    if not stacked:
        return block
    return count, True, tuple(None if p is None else tf.nest.map_structure(lambda t: t[:count], p) for p in data)


def class_weight_to_sample_weight(y: Any, class_weight: dict[int, float]) -> np.ndarray:
    """Per-sample weights from a {class index: weight} dict; keys must be exactly 0..n-1."""
    if not isinstance(class_weight, dict) or not class_weight:
        raise ValueError(f"class_weight must be a non-empty dict {{class index: weight}}, got {class_weight!r}")
    keys = list(class_weight)
    if not all(isinstance(k, int | np.integer) and not isinstance(k, bool) for k in keys):
        raise ValueError(f"class_weight keys must be integers 0..n-1, got keys {keys!r}")
    if sorted(int(k) for k in keys) != list(range(len(keys))):
        raise ValueError(f"class_weight keys must be 0..{len(keys) - 1} without gaps, got keys {sorted(keys)!r}")
    if y is None or isinstance(y, list | tuple | dict):
        raise ValueError("class_weight needs a single target array y")
    labels = np.asarray(y)
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] != 1 else np.squeeze(labels, axis=-1)
    labels = np.round(labels).astype(np.int64)
    table = np.array([class_weight[k] for k in sorted(class_weight)], dtype=np.float32)
    if labels.size and (labels.min() < 0 or labels.max() >= len(table)):
        raise ValueError(
            f"class_weight has weights for classes 0..{len(table) - 1}, but y holds class {int(labels.max())}"
        )
    return table[labels]


class DataHandler:
    """Hands the fit/evaluate/predict loops one iterator per epoch and the step indices within it."""

    def __init__(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        batch_size: int | None = None,
        steps_per_epoch: int | None = None,
        initial_epoch: int = 0,
        epochs: int = 1,
        shuffle: bool = False,
        class_weight: dict[int, float] | None = None,
        steps_per_execution: int = 1,
        semantics: str = "keras",
        seed: int | None = None,
    ) -> None:
        if not isinstance(epochs, int | np.integer) or epochs < 0:
            raise ValueError(f"epochs must be an integer >= 0, got {epochs!r}")
        if not isinstance(initial_epoch, int | np.integer) or initial_epoch < 0:
            raise ValueError(f"initial_epoch must be an integer >= 0, got {initial_epoch!r}")
        if steps_per_epoch is not None and (not isinstance(steps_per_epoch, int | np.integer) or steps_per_epoch < 1):
            raise ValueError(f"steps_per_epoch must be None or an integer >= 1, got {steps_per_epoch!r}")
        self._initial_epoch, self._epochs = int(initial_epoch), int(epochs)
        self._steps_per_execution = int(steps_per_execution)
        self.step_increment = 0
        self._current_step = 0
        self._iterator: EpochIterator | None = None
        if isinstance(x, tf.data.Dataset):
            if y is not None or sample_weight is not None:
                raise ValueError("y and sample_weight must be None when x is a tf.data.Dataset (it yields them)")
            if class_weight is not None:  # TF.NET maps to (x, y, class weights): it drops the dataset's own weights
                keep = semantics != "tfnet"
                x = x.map(lambda *e: _weight_element(e, class_weight, keep_sample_weight=keep))
            self._adapter: DataAdapter = DatasetAdapter(x)
            if self._adapter.is_infinite and steps_per_epoch is None:
                raise ValueError("steps_per_epoch must be given for an infinite tf.data.Dataset")
        else:
            fit_level_weights = None
            if class_weight is not None:
                cw = class_weight_to_sample_weight(_as_numpy(y), class_weight)
                if sample_weight is not None:
                    if semantics != "tfnet":
                        raise ValueError("class_weight and sample_weight cannot be used together (Keras 3 rule)")
                    fit_level_weights, cw = to_tensor(sample_weight, "sample_weight"), None
                sample_weight = cw
            self._adapter = TensorLikeDataAdapter(x, y, sample_weight, batch_size, shuffle, seed)
            if fit_level_weights is not None:
                self._adapter = FitLevelClassWeights(self._adapter, class_weight, fit_level_weights)
        self._steps_per_epoch = steps_per_epoch
        self.inferred_steps = steps_per_epoch if steps_per_epoch is not None else self._adapter.get_size()

    @property
    def adapter(self) -> DataAdapter:
        return self._adapter

    def enumerate_epochs(self) -> Iterator[tuple[int, EpochIterator]]:
        """Yield ``(epoch, iterator)`` for each epoch from initial_epoch to epochs - 1."""
        continuing: Iterator[tuple[int, bool, Batch]] | None = None
        for epoch in range(self._initial_epoch, self._epochs):
            if self._steps_per_epoch is None:
                blocks = self._adapter.epoch_iterator(self._steps_per_execution)
            else:  # run on across data epochs until steps_per_epoch steps are done, as Keras does
                if continuing is None:
                    continuing = self._endless_blocks()
                blocks = continuing
            self._iterator = EpochIterator(blocks, self._steps_per_epoch)
            yield epoch, self._iterator

    def _endless_blocks(self) -> Iterator[tuple[int, bool, Batch]]:
        while True:
            produced = False
            for block in self._adapter.epoch_iterator(self._steps_per_execution):
                produced = True
                yield block
            if not produced:
                return

    def steps(self) -> Iterator[int]:
        """Yield the index of the first step of each execution in the current epoch."""
        self._current_step = 0
        iterator = self._iterator
        while iterator is not None and iterator.has_next():
            self.step_increment = 0
            yield self._current_step
            self._current_step += self.step_increment + 1


def _as_numpy(y: Any) -> Any:
    return y.numpy() if isinstance(y, tf.Tensor) else y


def _class_ids(y: tf.Tensor, batch_dims: int = 1) -> tf.Tensor:
    """Class index per row: argmax of one-hot targets, else the (rounded) label itself."""
    if y.shape.rank and y.shape.rank > batch_dims and y.shape[-1] != 1:
        labels = tf.argmax(y, axis=-1)
    else:
        labels = tf.reshape(y, [-1] if batch_dims == 1 else tf.shape(y)[:batch_dims])
    return tf.cast(tf.round(tf.cast(labels, tf.float32)), tf.int64)


def _weight_table(class_weight: dict[int, float]) -> tf.Tensor:
    return tf.constant([class_weight[k] for k in sorted(class_weight)], tf.float32)


def _weight_element(
    element: tuple[Any, ...], class_weight: dict[int, float], keep_sample_weight: bool = True
) -> tuple[Any, ...]:
    if len(element) < 2:
        raise ValueError("class_weight needs a dataset of (x, y) elements")
    x, y = element[0], element[1]
    weights = tf.gather(_weight_table(class_weight), _class_ids(y))
    if len(element) == 3 and keep_sample_weight:
        raise ValueError("class_weight and sample_weight cannot be used together (Keras 3 rule): "
                         "the dataset already yields sample weights")
    return x, y, weights


class FitLevelClassWeights(DataAdapter):
    """semantics='tfnet' with class_weight and sample_weight: each batch's weights are its class weights times the
    WHOLE fit-level sample_weight array, as TF.NET's class-weight map reads the fit argument, not the batch's rows.

    That product broadcasts only for batches of one row or of every row; other batch sizes are a ValueError here
    (TF.NET fails inside TensorFlow with incompatible shapes at the first step).
    """

    def __init__(self, inner: TensorLikeDataAdapter, class_weight: dict[int, float], fit_weights: tf.Tensor) -> None:
        n, batch_size = inner.num_samples, inner.batch_size
        if int(fit_weights.shape[0]) != n:
            raise ValueError(f"x and sample_weight must have the same number of samples, got x: {n}, "
                             f"sample_weight: {int(fit_weights.shape[0])}")
        if not (batch_size >= n or batch_size == 1):
            raise ValueError(
                f"class_weight with sample_weight under semantics='tfnet' needs batch_size 1 or >= the {n} "
                f"samples, got batch_size={batch_size}: TensorFlow.NET multiplies each batch's class weights by "
                f"the whole sample_weight array ({n} values), which fails for batches of {batch_size} rows"
            )
        self._inner = inner
        self.batch_size = batch_size
        self._table = _weight_table(class_weight)
        self._fit_weights = tf.cast(tf.reshape(fit_weights, [-1]), tf.float32)

    def get_size(self) -> int:
        return self._inner.get_size()

    def get_dataset(self) -> Any:
        return self._inner.get_dataset()

    def epoch_iterator(self, steps_per_execution: int = 1) -> Iterator[tuple[int, bool, Batch]]:
        for steps, stacked, (x, y, _) in self._inner.epoch_iterator(steps_per_execution):
            weights = tf.gather(self._table, _class_ids(y, 2 if stacked else 1)) * self._fit_weights
            yield steps, stacked, (x, y, weights)
