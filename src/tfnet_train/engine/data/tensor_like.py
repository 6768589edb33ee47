"""TensorLikeDataAdapter: in-memory arrays batched without tf.data (TensorLikeDataAdapter.cs).

Keras's ``ArrayDataAdapter`` checks the arrays, applies class weights and counts batches; this subclass only
replaces how an epoch's batches are produced: one gather (when shuffling) and one split per array per epoch,
handed out as tensors, because per-step tf.data iteration costs more than the step itself for small models.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import tensorflow as tf
from keras import tree
from keras.utils import unpack_x_y_sample_weight as _keras_unpack

from tfnet_train.keras_internals import ArrayDataAdapter, array_adapter_state, convert_to_sliceable

Batch = tuple[Any, ...]


def is_tensor_like(data: tuple[Any, ...]) -> bool:
    """True when every leaf of ``(x, y, sample_weight)`` is a dense NumPy array or TensorFlow tensor (the fast
    path's inputs); y and sample_weight may be None, but no leaf inside a structure (Keras's optional inputs)."""
    leaves = [leaf for part in data if part is not None for leaf in tree.flatten(part)]
    if not leaves or any(leaf is None for leaf in leaves):
        return False
    for leaf in leaves:
        if isinstance(leaf, np.ndarray):
            if leaf.dtype == object:
                return False
        elif not isinstance(leaf, tf.Tensor) or isinstance(leaf, tf.SparseTensor | tf.RaggedTensor):
            return False
    return True


def to_tensor(value: Any, name: str) -> tf.Tensor:
    """One array-like as a tensor: float64 becomes float32 (Keras floatx); non-numeric data is refused."""
    if isinstance(value, tf.Tensor | tf.Variable):
        t = tf.convert_to_tensor(value)
        return tf.cast(t, tf.float32) if t.dtype == tf.float64 else t
    try:
        array = np.asarray(value)
    except Exception as exc:  # ragged nested lists and the like
        raise TypeError(f"{name} must be a numeric array, got {type(value).__name__}: {exc}") from exc
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_):
        raise TypeError(f"{name} must hold numbers (float or int), got dtype {array.dtype}")
    if array.ndim == 0:
        raise ValueError(f"{name} must have a batch dimension, got a scalar")
    if array.dtype == np.float64:
        array = array.astype(np.float32)
    return tf.convert_to_tensor(array)


def structure_to_tensors(value: Any, name: str) -> Any:
    """to_tensor on every leaf of a list/tuple/dict structure (None stays None)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {k: structure_to_tensors(v, f"{name}[{k!r}]") for k, v in value.items()}
    if isinstance(value, list | tuple) and value and _is_array_like(value[0]):
        return type(value)(structure_to_tensors(v, f"{name}[{i}]") for i, v in enumerate(value))
    return to_tensor(value, name)


def _is_array_like(v: Any) -> bool:
    return v is None or isinstance(v, np.ndarray | tf.Tensor | tf.Variable | dict) or (
        isinstance(v, list | tuple) and len(v) > 0 and isinstance(v[0], list | tuple | np.ndarray)
    )


class ArrayBatches:
    """One pass over in-memory data: runs of row indices (``take``) for compiled functions that gather their own
    batches, or single batches (``next``) for everything else."""

    def __init__(self, inputs: Batch, num_samples: int, batch_size: int,
                 order: Callable[[], np.ndarray] | None = None) -> None:
        self.data = inputs
        self._num_samples = num_samples
        self._draw_order = order  # drawn on first use: a pass may be created and never read
        self._drawn: np.ndarray | None = None
        self._full = num_samples // batch_size
        self._sizes = [batch_size] * self._full + ([num_samples % batch_size] if num_samples % batch_size else [])
        self._batch_size = batch_size
        self._pieces: list[list[tf.Tensor]] | None = None
        self._position = 0

    def __len__(self) -> int:
        return len(self._sizes)

    @property
    def batch_size(self) -> int:
        return self._batch_size

    @property
    def _order(self) -> np.ndarray:
        if self._drawn is None:
            self._drawn = self._draw_order() if self._draw_order else np.arange(self._num_samples)
        return self._drawn

    def __iter__(self) -> ArrayBatches:
        return self

    def __next__(self) -> Batch:
        if self._position >= len(self._sizes):
            raise StopIteration
        batch = self._batch(self._position)
        self._position += 1
        return batch

    def take(self, count: int) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Row indices of up to ``count`` next batches: the full ones (``k * batch_size`` rows, to reshape as
        ``(k, batch_size, ...)``) and the partial last batch apart. Either part is None when empty; both are None
        when the data is exhausted."""
        start, bs = self._position, self._batch_size
        full = max(0, min(count, self._full - start))
        full_rows = self._order[start * bs:(start + full) * bs] if full else None
        self._position += full
        tail_rows = None
        if full < count and self._position < len(self._sizes):
            tail_rows = self._order[self._position * bs:]
            self._position += 1
        return full_rows, tail_rows

    def _batch(self, index: int) -> Batch:
        if self._pieces is None:  # one gather and one split per array per pass, on first use
            leaves = tree.flatten(self.data)
            if self._draw_order is not None:
                order = tf.constant(self._order)
                leaves = [tf.gather(t, order) for t in leaves]
            self._pieces = [tf.split(t, self._sizes) if len(self._sizes) > 1 else [t] for t in leaves]
        return tree.pack_sequence_as(self.data, [pieces[index] for pieces in self._pieces])


class TensorLikeDataAdapter(ArrayDataAdapter):
    """Keras's ArrayDataAdapter whose epochs are ``ArrayBatches`` of tensors.

    Each epoch's order is drawn from ``(seed, epoch)``, the seed taken from NumPy's global generator when not given
    (so ``keras.utils.set_random_seed`` fixes it): a fit resumed at epoch ``e`` sees the order an uninterrupted fit
    saw there.
    """

    def __init__(self, x: Any, y: Any = None, sample_weight: Any = None, batch_size: int | None = None,
                 steps: int | None = None, shuffle: bool | str = False, class_weight: Any = None,
                 seed: int | None = None) -> None:
        super().__init__(x, y, sample_weight=sample_weight, batch_size=batch_size, steps=steps, shuffle=shuffle,
                         class_weight=class_weight)
        state = array_adapter_state(self)
        self._rows, self._rows_per_batch, self._shuffle_mode = state.num_samples, state.batch_size, state.shuffle
        if self._rows == 0:
            raise ValueError("x is empty: got 0 samples")
        sliceable = convert_to_sliceable(state.inputs, target_backend="tensorflow")
        self._tensors = tree.map_structure(lambda a: None if a is None else tf.convert_to_tensor(a), sliceable)
        # Drawn only when the order is shuffled: evaluate, predict and validation leave NumPy's state alone.
        self.seed = int(seed) if seed is not None else int(np.random.randint(0, 2**31 - 1)) if shuffle else 0

    @property
    def num_samples(self) -> int:
        return self._rows

    def epoch_order(self, epoch: int) -> np.ndarray:
        """The rows of pass ``epoch`` in order, drawn from ``(seed, epoch)`` (``"batch"`` shuffles whole batches, as
        in Keras)."""
        n, bs = self._rows, self._rows_per_batch
        rng = np.random.default_rng([self.seed, epoch])
        if self._shuffle_mode == "batch":
            blocks = rng.permutation(math.ceil(n / bs))
            return np.concatenate([np.arange(b * bs, min((b + 1) * bs, n)) for b in blocks])
        return rng.permutation(n)

    def epoch_batches(self, epoch: int = 0) -> ArrayBatches:
        """A fresh pass over the data, shuffled when asked; the order is drawn on first use."""
        order = (lambda: self.epoch_order(epoch)) if self._shuffle_mode else None
        return ArrayBatches(self._tensors, self._rows, self._rows_per_batch, order)

    def epoch_dataset(self, epoch: int) -> tf.data.Dataset:
        """Pass ``epoch`` as a tf.data dataset of global batches, in ``epoch_batches``'s order, for a distribution
        strategy to split (auto-shard policy DATA, as Keras's ArrayDataAdapter sets)."""
        n, bs = self._rows, self._rows_per_batch
        order = self.epoch_order(epoch) if self._shuffle_mode else np.arange(n)
        full = n // bs
        indices = tf.data.Dataset.from_tensor_slices(order[:full * bs].reshape(full, bs).astype(np.int64))
        if n % bs:
            indices = indices.concatenate(tf.data.Dataset.from_tensors(order[full * bs:].astype(np.int64)))
        leaves = tree.flatten(self._tensors)
        present = tuple(t for t in leaves if t is not None)

        def gather(rows: tf.Tensor, arrays: tuple[tf.Tensor, ...]) -> Any:
            gathered = iter([tf.gather(t, rows) for t in arrays])
            return tree.pack_sequence_as(self._tensors, [None if t is None else next(gathered) for t in leaves])

        # The arrays enter as one repeated element, not as constants of the map function (the dataset's graph is
        # rewritten for sharding; large constants would be copied into it).
        dataset = tf.data.Dataset.zip((indices, tf.data.Dataset.from_tensors(present).repeat())).map(gather)
        options = tf.data.Options()
        options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
        return dataset.with_options(options)

    def first_batch(self) -> Batch:
        """The first batch in data order (to build the model, metrics and optimizer before tracing)."""
        return tree.map_structure(lambda t: None if t is None else t[:self._rows_per_batch], self._tensors)

    def get_numpy_iterator(self) -> Any:
        return (tree.map_structure(lambda t: None if t is None else t.numpy(), b) for b in self.epoch_batches())


def unpack_x_y_sample_weight(data: Any) -> tuple[Any, Any, Any]:
    """(x, y, sample_weight) from one batch, as Keras unpacks it."""
    return _keras_unpack(data)
