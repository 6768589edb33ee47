"""DataAdapter base, expand_1d and train_validation_split (DataAdapter.cs)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import tensorflow as tf

Batch = tuple[Any, ...]


def expand_1d(data: Any) -> Any:
    """Turn every rank-1 tensor in a (possibly nested) structure into shape (n, 1); other values pass through."""

    def expand(t: Any) -> Any:
        shape = getattr(t, "shape", None)
        rank = shape.rank if isinstance(shape, tf.TensorShape) else (None if shape is None else len(shape))
        return tf.expand_dims(t, axis=-1) if rank == 1 else t

    return tf.nest.map_structure(expand, data)


def _tfnet_train_count(n: int, validation_split: float) -> int:
    """TF.NET's ``Convert.ToInt32(n * (1 - validation_split))``: a float32 product (long * float is float in C#),
    rounded half to even."""
    return int(np.round(np.float32(n) * (np.float32(1.0) - np.float32(validation_split))))


def train_validation_split(
    arrays: Sequence[Any], validation_split: float, semantics: str = "keras"
) -> tuple[list[Any], list[Any]]:
    """Split each array (None passes through) into leading training rows and trailing validation rows.

    keras: the first floor(N * (1 - split)) rows train (Keras 3); tfnet: the first round-half-even(N * (1 - split)),
    the product taken in float32 as TF.NET does.
    """
    if not 0.0 < validation_split < 1.0:
        raise ValueError(f"validation_split must be in the open interval (0, 1), got {validation_split!r}")
    first = next((a for a in arrays if a is not None), None)
    if first is None:
        raise ValueError("validation_split needs data: x is None")
    n = int(_leading_dim(first))
    if semantics == "tfnet":
        split_at = _tfnet_train_count(n, validation_split)
    else:
        split_at = int(np.floor(n * (1.0 - validation_split)))
    if split_at <= 0 or split_at >= n:
        raise ValueError(
            f"validation_split={validation_split} leaves {split_at} of {n} samples for training; "
            "both the training and the validation part need at least one sample"
        )

    def head(a: Any) -> Any:
        return None if a is None else tf.nest.map_structure(lambda t: t[:split_at], a)

    def tail(a: Any) -> Any:
        return None if a is None else tf.nest.map_structure(lambda t: t[split_at:], a)

    return [head(a) for a in arrays], [tail(a) for a in arrays]


def _leading_dim(a: Any) -> int:
    flat = tf.nest.flatten(a)
    return int(flat[0].shape[0])


class DataAdapter:
    """Base class: turns user data into per-epoch iterators of batches ``(x, y, sample_weight)``."""

    #: rows per full batch (None when the source decides, e.g. a tf.data.Dataset)
    batch_size: int | None = None

    def get_size(self) -> int | None:
        """Number of batches per epoch, or None if unknown."""
        raise NotImplementedError

    def get_dataset(self) -> Any:
        """The underlying data (for adapters that have one)."""
        raise NotImplementedError

    def should_recreate_iterator(self) -> bool:
        """True when each epoch needs a fresh iterator."""
        return True

    def epoch_iterator(self, steps_per_execution: int = 1) -> Iterator[tuple[int, Batch]]:
        """Yield ``(n_steps, batch)`` blocks for one epoch; n_steps > 1 means batch tensors are stacked blocks."""
        raise NotImplementedError
