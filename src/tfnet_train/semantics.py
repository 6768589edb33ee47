"""Semantics profiles: ``keras`` (Keras 3 numbers) and ``tfnet`` (what TensorFlow.NET's Keras 0.15 computes).

A ``Profile`` answers every question on which the two differ, so the engine asks it instead of comparing strings.
The differences themselves are listed, with their TensorFlow.NET sources, in docs/semantics.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

KERAS = "keras"
TFNET = "tfnet"
PROFILES = (KERAS, TFNET)


def _flag(*rows: int, errors: tuple[str, ...] = ()) -> Any:
    """A Profile field reproducing the numbered docs/semantics.md rows ``rows`` and the rows of its "Errors raised
    instead of crashes" table that start with one of ``errors`` (tests/test_semantics_profile.py checks both)."""
    return field(metadata={"rows": rows, "errors": errors})


@dataclass(frozen=True)
class Profile:
    """What one profile computes where Keras 3 and TensorFlow.NET part: every part of the engine, the optimizers and
    the NumPy reference asks these flags; none compares profile names."""

    name: str
    #: TF.NET's Expand1d: rank-1 x, y and sample_weight become (n, 1) before the step (Keras 3 does not).
    expands_1d: bool = _flag(24)
    #: clipnorm, clipvalue and global_clipnorm clip (TF.NET's aggregate_gradients and clip_gradients return their
    #: input).
    clips_gradients: bool = _flag(1)
    #: layer regularizers and add_loss terms join the training loss (TF.NET's LossesContainer drops them).
    adds_regularization_losses: bool = _flag(2)
    #: TF.NET's optimizer updates: its kernels and formulas (SGD without nesterov, RMSprop without momentum and
    #: epsilon outside the root, Adam's float32 1 - beta, AdamW's decay with the constructor's rate and no decoupled
    #: decay), NotImplementedError for what TF.NET throws on (centered, amsgrad), and only the engine's optimizers.
    tfnet_optimizer_updates: bool = _flag(3, 4, 5, 6, 7, 23, errors=("`RMSprop(centered=True)`",))
    #: any optimizer string is RMSprop(0.001, rho=0.9, epsilon=1e-7) (TF.NET's string compile).
    string_optimizer_is_rmsprop: bool = _flag(8)
    #: TF.NET's losses: its string rules (exactly "mse"/"mae", anything else and None MSE), its weighted loss
    #: without squeezing (B,) * (B, 1), class ids broadcast in CategoricalCrossentropy.
    tfnet_losses: bool = _flag(9, 10, 11, 25)
    #: TF.NET's metric strings and names (acc/mae/mape logged under its names, others refused) and logs reduced by
    #: mean.
    tfnet_metrics: bool = _flag(14, 15, errors=("a metric string other than",))
    #: class_weight on a dataset replaces its sample weights; with sample_weight on arrays, each batch is weighted
    #: by its class weights times the whole fit-level array (TF.NET's DataHandler map) instead of a ValueError.
    tfnet_class_weights: bool = _flag(16, 17, 18, errors=("`class_weight` with `sample_weight`",
                                                          "`class_weight` keys"))
    #: validation_split keeps Convert.ToInt32(n * (1 - split)) rows (float32, half to even), not floor.
    rounds_validation_split_half_even: bool = _flag(19)
    #: validation on arrays every epoch with evaluate's batch size 32 (TF.NET's FitInternal), not every
    #: validation_freq epochs with fit's batch size.
    validates_every_epoch_with_batch_32: bool = _flag(20)
    #: a tf.data validation set only at 0-based epochs that are multiples of validation_step, never at epoch 0,
    #: skipping on_epoch_end on the others (TF.NET's dataset FitInternal).
    dataset_validation_schedule: bool = _flag(21, 22, errors=("dataset validation with `validation_step=0`",))
    #: every (gradient, variable) pair applied as given: a None gradient is a ValueError naming the variable
    #: (TF.NET: NullReferenceException), and no variable constraints.
    applies_gradients_as_given: bool = _flag(errors=("a variable without a gradient",))
    #: arrays of another rank with an input's per-sample size reshaped to it when only Flatten layers read that
    #: input (TF.NET feeds arrays to its layers unchecked), not a ValueError.
    reshapes_inputs_for_flatten: bool = _flag(26)
    #: the face's SigmoidFocalCrossEntropy, F1Score and FBetaScore in TF.NET's float32 arithmetic (log(output +
    #: epsilon), divide_no_nan) instead of Keras 3's.
    tfnet_loss_and_metric_arithmetic: bool = _flag(27)
    #: learning-rate schedules accepted (TF.NET's optimizers take a float only).
    takes_learning_rate_schedules: bool = _flag(errors=("a learning-rate schedule",))

    def train_count(self, n: int, validation_split: float) -> int:
        """Rows that train when ``validation_split`` of ``n`` rows validate."""
        if self.rounds_validation_split_half_even:  # Convert.ToInt32(n * (1 - split)): float32, half to even
            return int(np.round(np.float32(n) * (np.float32(1.0) - np.float32(validation_split))))
        return int(np.floor(n * (1.0 - validation_split)))

    def __str__(self) -> str:
        return self.name


KERAS_PROFILE = Profile(
    KERAS, expands_1d=False, clips_gradients=True, adds_regularization_losses=True, tfnet_optimizer_updates=False,
    string_optimizer_is_rmsprop=False, tfnet_losses=False, tfnet_metrics=False, tfnet_class_weights=False,
    rounds_validation_split_half_even=False, validates_every_epoch_with_batch_32=False,
    dataset_validation_schedule=False, applies_gradients_as_given=False, takes_learning_rate_schedules=True,
    reshapes_inputs_for_flatten=False, tfnet_loss_and_metric_arithmetic=False)
TFNET_PROFILE = Profile(
    TFNET, expands_1d=True, clips_gradients=False, adds_regularization_losses=False, tfnet_optimizer_updates=True,
    string_optimizer_is_rmsprop=True, tfnet_losses=True, tfnet_metrics=True, tfnet_class_weights=True,
    rounds_validation_split_half_even=True, validates_every_epoch_with_batch_32=True,
    dataset_validation_schedule=True, applies_gradients_as_given=True, takes_learning_rate_schedules=False,
    reshapes_inputs_for_flatten=True, tfnet_loss_and_metric_arithmetic=True)
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
