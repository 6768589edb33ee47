"""StepTrace: the value of every stage of one training step, in the order the step computes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

STAGES: tuple[str, ...] = (
    "inputs",
    "y_pred",
    "loss",
    "gradients",
    "aggregated_gradients",
    "clipped_gradients",
    "weights",
    "optimizer_state",
    "metrics",
)


@dataclass
class StepTrace:
    """One training step, stage by stage (all values are NumPy arrays or Python numbers).

    inputs: {"x": [arrays], "y": [arrays], "sample_weight": [arrays]} after expand_1d (rank-1 arrays shown as
    columns under both profiles; Keras 3 itself takes them as they are).
    y_pred: [arrays], one per model output.  loss: the training loss (float).
    gradients / aggregated_gradients / clipped_gradients: one array per trainable variable, in
    ``variable_names`` order (None for a variable without a gradient; an Embedding's sparse gradient dense).
    weights: every model weight after the update, in ``get_weights()`` order (names in ``weight_names``).
    optimizer_state: {"iterations": int, "learning_rate": float,
    "slots": {slot_name: [array per trainable variable]}}.  metrics: the step's logs, {name: float}.

    Under a distribution strategy the stages above are the step as a whole, as one device takes it on the same
    batch: inputs the global batch, y_pred the replicas' predictions in row order, loss the global-batch loss,
    gradients the aggregated ones (their sum over replicas). ``replicas`` then holds each replica's own stages:
    {"rows": int, "inputs": {...}, "y_pred": [arrays], "loss": float (mean over its rows), "gradients": [arrays]
    (of its share of the global loss; they sum to aggregated_gradients)}; empty on one device.
    """

    step: int
    inputs: dict[str, list[np.ndarray]]
    y_pred: list[np.ndarray]
    loss: float
    gradients: list[np.ndarray]
    aggregated_gradients: list[np.ndarray]
    clipped_gradients: list[np.ndarray]
    weights: list[np.ndarray]
    optimizer_state: dict[str, Any]
    metrics: dict[str, float]
    variable_names: list[str] = field(default_factory=list)
    weight_names: list[str] = field(default_factory=list)
    replicas: list[dict[str, Any]] = field(default_factory=list)

    def stage(self, name: str) -> Any:
        """The value of one stage by name."""
        if name not in STAGES:
            raise ValueError(f"stage must be one of {STAGES}, got {name!r}")
        return getattr(self, name)

    def flat(self) -> dict[str, np.ndarray]:
        """Every value as ``"stage/key"`` -> array, for comparison and storage (e.g. ``gradients/0``)."""
        return flatten(inputs=self.inputs, y_pred=self.y_pred, loss=self.loss, gradients=self.gradients,
                       aggregated_gradients=self.aggregated_gradients, clipped_gradients=self.clipped_gradients,
                       weights=self.weights, optimizer_state=self.optimizer_state, metrics=self.metrics,
                       replicas=self.replicas)


# The flat form: one key per array, "stage" or "stage/part/.../index". Every trace in the project (engine, Keras,
# NumPy reference; the C# reference and the C# StepTrace through TraceKeys.cs) is written and read by these rules.
INPUT_KINDS: tuple[str, ...] = ("x", "y", "sample_weight")
LIST_STAGES: tuple[str, ...] = ("gradients", "aggregated_gradients", "clipped_gradients", "weights")


def key(stage: str, *parts: object) -> str:
    """The flat key of a value: ``key("gradients", 1)`` -> ``"gradients/1"``."""
    return "/".join((stage, *map(str, parts)))


def stage_of(flat_key: str) -> str:
    """The stage a flat key belongs to (``"gradients/0"`` -> ``"gradients"``)."""
    return flat_key.split("/", 1)[0]


def flatten(*, inputs: dict[str, list[Any]] | None = None, y_pred: list[Any] | None = None, loss: float | None = None,
            gradients: list[Any] | None = None, aggregated_gradients: list[Any] | None = None,
            clipped_gradients: list[Any] | None = None, weights: list[Any] | None = None,
            optimizer_state: dict[str, Any] | None = None, metrics: dict[str, float] | None = None,
            replicas: list[dict[str, Any]] | None = None) -> dict[str, np.ndarray]:
    """The flat trace of the stages given (an implementation that does not expose a stage leaves it out). A list
    entry of None (a variable without a gradient) has no key."""
    out: dict[str, np.ndarray] = {}
    _put_inputs(out, (), inputs or {})
    _put_list(out, ("y_pred",), y_pred)
    if loss is not None:
        out["loss"] = np.asarray(loss, dtype=np.float64)
    lists = {"gradients": gradients, "aggregated_gradients": aggregated_gradients,
             "clipped_gradients": clipped_gradients, "weights": weights}
    for stage in LIST_STAGES:
        _put_list(out, (stage,), lists[stage])
    if optimizer_state is not None:
        out[key("optimizer_state", "iterations")] = np.asarray(optimizer_state.get("iterations", 0), dtype=np.int64)
        if "learning_rate" in optimizer_state:
            out[key("optimizer_state", "learning_rate")] = np.asarray(optimizer_state["learning_rate"],
                                                                      dtype=np.float64)
        for slot, arrays in sorted(optimizer_state.get("slots", {}).items()):
            _put_list(out, ("optimizer_state", slot), arrays)
    for name, value in (metrics or {}).items():
        out[key("metrics", name)] = np.asarray(value, dtype=np.float64)
    for r, replica in enumerate(replicas or []):
        out[key("replicas", r, "loss")] = np.asarray(replica["loss"], dtype=np.float64)
        _put_inputs(out, ("replicas", r), replica["inputs"])
        for stage in ("y_pred", "gradients"):
            _put_list(out, ("replicas", r, stage), replica[stage])
    return out


def _put_inputs(out: dict[str, np.ndarray], prefix: tuple[object, ...], inputs: dict[str, list[Any]]) -> None:
    for kind in INPUT_KINDS:
        _put_list(out, (*prefix, "inputs", kind), inputs.get(kind))


def _put_list(out: dict[str, np.ndarray], prefix: tuple[object, ...], arrays: list[Any] | None) -> None:
    for i, a in enumerate(arrays or []):
        if a is not None:  # a variable without a gradient has no key (C#: null at its index)
            out[key(*prefix, i)] = np.asarray(a)
