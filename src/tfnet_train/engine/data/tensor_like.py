"""TensorLikeDataAdapter: in-memory arrays and tensors, batched, optionally shuffled (TensorLikeDataAdapter.cs)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import tensorflow as tf

from tfnet_train.engine.data.adapter import Batch, DataAdapter

DEFAULT_BATCH_SIZE = 32


def to_tensor(value: Any, name: str) -> tf.Tensor:
    """Convert one array-like to a tensor: float64 becomes float32 (Keras floatx); non-numeric data is refused."""
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
    """Apply to_tensor to every leaf of a list/tuple/dict structure (None stays None)."""
    if value is None:
        return None
    if isinstance(value, dict):
        return {k: to_tensor(v, f"{name}[{k!r}]") for k, v in value.items()}
    if isinstance(value, list | tuple) and value and not np.isscalar(value[0]) and _is_array_like(value[0]):
        return [to_tensor(v, f"{name}[{i}]") for i, v in enumerate(value)]
    return to_tensor(value, name)


def _is_array_like(v: Any) -> bool:
    return isinstance(v, np.ndarray | tf.Tensor | tf.Variable) or (
        isinstance(v, list | tuple) and len(v) > 0 and isinstance(v[0], list | tuple | np.ndarray)
    )


def num_samples(value: Any, name: str) -> int:
    """Common leading dimension of every leaf; ValueError naming the leaves when they differ."""
    leaves = tf.nest.flatten(value)
    sizes = {int(t.shape[0]) for t in leaves}
    if len(sizes) != 1:
        raise ValueError(f"all arrays in {name} must have the same number of samples, got sizes {sorted(sizes)}")
    return sizes.pop()


class TensorLikeDataAdapter(DataAdapter):
    """Batches of (x, y, sample_weight) from arrays; the last partial batch is kept; seeded shuffle per epoch."""

    def __init__(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        batch_size: int | None = None,
        shuffle: bool = False,
        seed: int | None = None,
    ) -> None:
        if x is None:
            raise ValueError("x must be given: got None")
        self._x = structure_to_tensors(x, "x")
        self._y = structure_to_tensors(y, "y")
        self._sample_weight = None if sample_weight is None else to_tensor(sample_weight, "sample_weight")
        n = num_samples(self._x, "x")
        for name, value in (("y", self._y), ("sample_weight", self._sample_weight)):
            if value is not None:
                m = num_samples(value, name)
                if m != n:
                    raise ValueError(f"x and {name} must have the same number of samples, got x: {n}, {name}: {m}")
        if n == 0:
            raise ValueError("x is empty: got 0 samples")
        if batch_size is None or batch_size == -1:
            batch_size = DEFAULT_BATCH_SIZE
        if isinstance(batch_size, bool) or not isinstance(batch_size, int | np.integer) or batch_size < 1:
            raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        self.batch_size = int(batch_size)
        self.num_samples = n
        self._shuffle = bool(shuffle)
        self._rng = np.random.default_rng(seed)

    def get_size(self) -> int:
        return math.ceil(self.num_samples / self.batch_size)

    def get_dataset(self) -> tuple[Any, Any, Any]:
        return self._x, self._y, self._sample_weight

    def _segments(self, steps_per_execution: int) -> list[tuple[int, bool, int]]:
        """(steps, stacked, rows) for each execution of one epoch: blocks of full batches, then the partial batch."""
        n, bs = self.num_samples, self.batch_size
        full, segments, step = n // bs, [], 0
        while step < full:
            count = min(steps_per_execution, full - step)
            segments.append((count, steps_per_execution > 1, count * bs))
            step += count
        if n % bs:
            segments.append((1, False, n % bs))
        return segments

    def epoch_iterator(self, steps_per_execution: int = 1) -> Iterator[tuple[int, bool, Batch]]:
        """Yield ``(steps, stacked, batch)``; stacked blocks hold ``steps`` full batches as (steps, B, ...).

        One gather (when shuffling) and one split per array per epoch: per-step slicing costs more than the step
        itself for small models.
        """
        segments = self._segments(steps_per_execution)
        sizes = [rows for _, _, rows in segments]
        order = tf.constant(self._rng.permutation(self.num_samples)) if self._shuffle else None

        def split(t: tf.Tensor) -> list[tf.Tensor]:
            t = t if order is None else tf.gather(t, order)
            return tf.split(t, sizes) if len(sizes) > 1 else [t]

        structures = (self._x, self._y, self._sample_weight)
        pieces = [None if p is None else [split(t) for t in tf.nest.flatten(p)] for p in structures]
        bs = self.batch_size
        for i, (steps, stacked, _) in enumerate(segments):
            batch = []
            for structure, leaves in zip(structures, pieces, strict=True):
                if structure is None:
                    batch.append(None)
                    continue
                chosen = [leaf[i] for leaf in leaves]
                if stacked:
                    chosen = [tf.reshape(t, [steps, bs, *t.shape[1:]]) for t in chosen]
                batch.append(tf.nest.pack_sequence_as(structure, chosen))
            yield steps, stacked, tuple(batch)
