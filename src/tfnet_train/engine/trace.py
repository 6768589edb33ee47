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
        out: dict[str, np.ndarray] = {}
        for kind in ("x", "y", "sample_weight"):
            for i, a in enumerate(self.inputs.get(kind, [])):
                out[f"inputs/{kind}/{i}"] = np.asarray(a)
        for i, a in enumerate(self.y_pred):
            out[f"y_pred/{i}"] = np.asarray(a)
        out["loss"] = np.asarray(self.loss, dtype=np.float64)
        for stage in ("gradients", "aggregated_gradients", "clipped_gradients", "weights"):
            for i, a in enumerate(getattr(self, stage)):
                if a is not None:  # a variable without a gradient has no key (C#: null at its index)
                    out[f"{stage}/{i}"] = np.asarray(a)
        state = self.optimizer_state
        out["optimizer_state/iterations"] = np.asarray(state.get("iterations", 0), dtype=np.int64)
        if "learning_rate" in state:
            out["optimizer_state/learning_rate"] = np.asarray(state["learning_rate"], dtype=np.float64)
        for slot, arrays in sorted(state.get("slots", {}).items()):
            for i, a in enumerate(arrays):
                out[f"optimizer_state/{slot}/{i}"] = np.asarray(a)
        for name, value in self.metrics.items():
            out[f"metrics/{name}"] = np.asarray(value, dtype=np.float64)
        for r, replica in enumerate(self.replicas):
            out[f"replicas/{r}/loss"] = np.asarray(replica["loss"], dtype=np.float64)
            for kind in ("x", "y", "sample_weight"):
                for i, a in enumerate(replica["inputs"].get(kind, [])):
                    out[f"replicas/{r}/inputs/{kind}/{i}"] = np.asarray(a)
            for stage in ("y_pred", "gradients"):
                for i, a in enumerate(replica[stage]):
                    if a is not None:
                        out[f"replicas/{r}/{stage}/{i}"] = np.asarray(a)
        return out
