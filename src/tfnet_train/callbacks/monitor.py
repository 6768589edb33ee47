"""Shared logic of callbacks that watch one logged quantity: direction (min/max) and "is this better?".

`mode="auto"` decides the direction as Keras 3 does for Keras models (a metric object of the model named like
the monitored quantity, minus `val_`, carrying a `_direction` of "up"/"down"; "loss" is minimised), and
beyond that from the metric's name: accuracy/AUC/precision/recall/F-score/IoU/R2/correlation-style names
are maximised, loss/error/crossentropy/hinge-style names are minimised, also after an output prefix such as
`dense_1_accuracy`. A name that fits none of these is an error asking for an explicit mode.

Comparisons are made in float32, as Keras 3 does (its `ops.less`/`ops.greater` turn Python floats into
float32 tensors), so two values closer than float32 resolution are "no change" in both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfnet_train.callbacks.callback import Callback

MODES = ("auto", "min", "max")

MAXIMIZED_NAMES = frozenset(
    {
        "acc", "accuracy", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
        "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy", "auc", "precision", "recall",
        "f1_score", "fbeta_score", "r2_score", "iou", "io_u", "mean_iou", "mean_io_u", "binary_io_u",
        "one_hot_io_u", "one_hot_mean_io_u", "cosine_similarity", "pearson_correlation",
        "concordance_correlation", "precision_at_recall", "recall_at_precision", "sensitivity_at_specificity",
        "specificity_at_sensitivity",
    }
)  # fmt: skip
MINIMIZED_NAMES = frozenset(
    {
        "loss", "mse", "mae", "mape", "msle", "mean_squared_error", "mean_absolute_error",
        "mean_absolute_percentage_error", "mean_squared_logarithmic_error", "root_mean_squared_error",
        "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy", "hinge",
        "squared_hinge", "categorical_hinge", "kl_divergence", "kld", "poisson", "logcosh", "log_cosh",
    }
)  # fmt: skip


def check_mode(mode: Any, owner: str) -> str:
    """Return `mode` if it is "auto", "min" or "max"; otherwise raise ValueError naming it."""
    if mode not in MODES:
        raise ValueError(f"{owner} mode must be one of 'auto', 'min', 'max'; got mode={mode!r}")
    return mode


def _model_metric_direction(model: Any, name: str) -> str | None:
    """'max'/'min' from a metric object of `model` called `name` that declares a direction, else None."""
    found = None
    for metric in getattr(model, "metrics", None) or ():
        for candidate in [metric, *(getattr(metric, "metrics", None) or ())]:
            direction = getattr(candidate, "_direction", None)
            if getattr(candidate, "name", None) == name and direction in ("up", "down"):
                found = "max" if direction == "up" else "min"
    return found


def _name_direction(name: str) -> str | None:
    for known, direction in ((MAXIMIZED_NAMES, "max"), (MINIMIZED_NAMES, "min")):
        if name in known or any(name.endswith("_" + item) for item in known):
            return direction
    return None


def infer_direction(monitor: str, model: Any, owner: str) -> str:
    """'min' or 'max' for `monitor` under mode="auto"; ValueError when the name gives no clue."""
    name = monitor.removeprefix("val_")
    direction = _model_metric_direction(model, name) if model is not None else None
    direction = direction or _name_direction(name)
    if direction is None:
        raise ValueError(
            f"{owner} received monitor={monitor!r}, but cannot tell whether it should be maximised or "
            "minimised; pass mode='max' to keep the highest value or mode='min' to keep the lowest"
        )
    return direction


class MonitorCallback(Callback):
    """Base for callbacks that compare one monitored quantity with its best value so far.

    Args:
        monitor: key of the logs to watch, e.g. "val_loss".
        mode: "auto", "min" or "max".
        min_delta: smallest change that counts as an improvement (its sign is ignored).
        best: initial best value (None: the first value seen is an improvement); subclasses validate it.
    """

    def __init__(self, monitor: str, mode: str, min_delta: float = 0.0, best: float | None = None) -> None:
        super().__init__()
        owner = type(self).__name__
        if not isinstance(monitor, str) or not monitor:
            raise TypeError(f"{owner} monitor must be a non-empty str; got monitor={monitor!r}")
        self.monitor = monitor
        self.mode = check_mode(mode, owner)
        self.min_delta = abs(check_number(min_delta, "min_delta", owner))
        self.best = best
        self.direction: str | None = None if mode == "auto" else mode

    def resolve_direction(self) -> str:
        """The direction ('min' or 'max'), inferred on first use under mode='auto'."""
        if self.direction is None:
            self.direction = infer_direction(self.monitor, self.model, type(self).__name__)
        return self.direction

    def is_improvement(self, current: float, reference: float | None) -> bool:
        """True when `current` beats `reference` by more than `min_delta` (always True against None)."""
        direction = self.resolve_direction()  # resolved even against None, so a bad monitor fails early
        if reference is None:
            return True
        if direction == "max":
            return bool(np.float32(current - self.min_delta) > np.float32(reference))
        return bool(np.float32(current + self.min_delta) < np.float32(reference))


def check_number(value: Any, name: str, owner: str) -> float:
    """`value` as a float; TypeError naming `name` unless it is a real number (bool excluded)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{owner} {name} must be a number; got {name}={value!r} of type {type(value).__name__}")
    return float(value)
