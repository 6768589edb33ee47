"""Semantics profiles: ``keras`` (Keras 3 numbers) and ``tfnet`` (what TensorFlow.NET's Keras 0.15 computes).

A ``Profile`` answers every question on which the two differ, so the engine asks it instead of comparing strings.
The differences themselves are listed, with their TensorFlow.NET sources, in docs/semantics.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KERAS = "keras"
TFNET = "tfnet"
PROFILES = (KERAS, TFNET)


@dataclass(frozen=True)
class Profile:
    """What one profile computes where Keras 3 and TensorFlow.NET part."""

    name: str
    #: TF.NET's Expand1d: rank-1 x, y and sample_weight become (n, 1) before the step (Keras 3 does not).
    expands_1d: bool
    #: layer regularizers and add_loss terms join the training loss (TF.NET's LossesContainer drops them).
    adds_regularization_losses: bool
    #: validation on arrays every epoch with evaluate's batch size 32 (TF.NET's FitInternal), not every
    #: validation_freq epochs with fit's batch size.
    validates_every_epoch_with_batch_32: bool
    #: a tf.data validation set only at 0-based epochs that are multiples of validation_step, never at epoch 0,
    #: skipping on_epoch_end on the others (TF.NET's dataset FitInternal).
    dataset_validation_schedule: bool
    #: class_weight on a dataset replaces its sample weights; with sample_weight on arrays, each batch is weighted
    #: by its class weights times the whole fit-level array (TF.NET's DataHandler map) instead of a ValueError.
    tfnet_class_weights: bool

    def train_count(self, n: int, validation_split: float) -> int:
        """Rows that train when ``validation_split`` of ``n`` rows validate."""
        if self.name == TFNET:  # Convert.ToInt32(n * (1 - split)): float32 product, rounded half to even
            return int(np.round(np.float32(n) * (np.float32(1.0) - np.float32(validation_split))))
        return int(np.floor(n * (1.0 - validation_split)))

    def __str__(self) -> str:
        return self.name


KERAS_PROFILE = Profile(KERAS, expands_1d=False, adds_regularization_losses=True,
                        validates_every_epoch_with_batch_32=False, dataset_validation_schedule=False,
                        tfnet_class_weights=False)
TFNET_PROFILE = Profile(TFNET, expands_1d=True, adds_regularization_losses=False,
                        validates_every_epoch_with_batch_32=True, dataset_validation_schedule=True,
                        tfnet_class_weights=True)
_BY_NAME = {KERAS: KERAS_PROFILE, TFNET: TFNET_PROFILE}


def check_semantics(value: object) -> str:
    """Validate a semantics argument and return it."""
    if value not in PROFILES:
        raise ValueError(f"semantics must be one of {PROFILES}, got {value!r}")
    return str(value)


def get_profile(value: object) -> Profile:
    """The Profile for ``"keras"`` or ``"tfnet"`` (a Profile passes through)."""
    if isinstance(value, Profile):
        return value
    return _BY_NAME[check_semantics(value)]
