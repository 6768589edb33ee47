"""Compiled metrics under the ``tfnet`` profile (MetricsContainer.cs); under ``keras`` Keras's CompileMetrics alone.

Keras's ``CompileMetrics`` resolves 'accuracy' from the shapes (the rule TF.NET shares) and matches metrics to
outputs; TF.NET differs in which strings it knows and the names it logs them under.
"""

from __future__ import annotations

from typing import Any

import keras

# TF.NET resolves these strings (and throws for any other); the value is the name it reports.
TFNET_NAMES = {
    "accuracy": "accuracy",
    "acc": "accuracy",
    "mae": "mean_absolute_error",
    "mean_absolute_error": "mean_absolute_error",
    "mape": "mean_absolute_percentage_error",
    "mean_absolute_percentage_error": "mean_absolute_percentage_error",
}


def tfnet_metric(identifier: Any) -> Any:
    """One metric as TF.NET resolves it: its six strings under their logged names; objects and callables as given."""
    if isinstance(identifier, str):
        if identifier not in TFNET_NAMES:  # exact match, as TF.NET compares the strings
            raise ValueError(
                f"metrics: {identifier!r} is not available under semantics='tfnet' "
                f"(TensorFlow.NET knows exactly {sorted(TFNET_NAMES)})"
            )
        reported = TFNET_NAMES[identifier]
        if reported == "accuracy":
            return "accuracy"
        return keras.metrics.MeanMetricWrapper(getattr(keras.metrics, reported), name=reported)
    return identifier


def tfnet_metrics(metrics: Any) -> Any:
    """The metrics argument of compile with every string resolved the TF.NET way (structure kept)."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        return {k: tfnet_metrics(v) for k, v in metrics.items()}
    if isinstance(metrics, list | tuple):
        return [tfnet_metrics(m) for m in metrics]
    return tfnet_metric(metrics)
