"""expand_1d and train_validation_split (DataAdapter.cs); the adapters themselves are Keras's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf
from keras import tree

from tfnet_train.keras_internals import can_slice_array, convert_to_sliceable
from tfnet_train.semantics import KERAS_PROFILE, Profile, get_profile


def expand_1d(data: Any) -> Any:
    """Turn every rank-1 tensor in a (possibly nested) structure into shape (n, 1); other values pass through."""

    def expand(t: Any) -> Any:
        shape = getattr(t, "shape", None)
        rank = shape.rank if isinstance(shape, tf.TensorShape) else (None if shape is None else len(shape))
        return tf.expand_dims(t, axis=-1) if rank == 1 else t

    return tf.nest.map_structure(expand, data)


def train_validation_split(
    arrays: Sequence[Any], validation_split: float, semantics: Profile | str = KERAS_PROFILE
) -> tuple[list[Any], list[Any]]:
    """Split each array (None passes through) into leading training rows and trailing validation rows.

    keras: the first floor(N * (1 - split)) rows train (Keras 3); tfnet: the first round-half-even(N * (1 - split)),
    the product taken in float32 as TF.NET does.
    """
    profile = get_profile(semantics)
    if not 0.0 < validation_split < 1.0:
        raise ValueError(f"validation_split must be in the open interval (0, 1), got {validation_split!r}")
    flat = [a for a in tree.flatten(list(arrays)) if a is not None]
    unsplitable = [type(a).__name__ for a in flat if not can_slice_array(a)]
    if unsplitable or not flat:
        raise ValueError("validation_split is only supported for arrays and tensors (x must be given), "
                         f"got {unsplitable or 'no data'}")
    n = int(flat[0].shape[0])
    split_at = profile.train_count(n, validation_split)
    if split_at <= 0 or split_at >= n:
        raise ValueError(
            f"validation_split={validation_split} leaves {split_at} of {n} samples for training; "
            "both the training and the validation part need at least one sample"
        )
    sliceables = convert_to_sliceable(list(arrays))

    def part(start: int, end: int) -> list[Any]:
        return [tree.map_structure(lambda s: None if s is None else s[start:end], a) for a in sliceables]

    return part(0, split_at), part(split_at, n)
