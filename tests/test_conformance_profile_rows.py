"""One small case per docs/semantics.md row that shows inside a training step: the profile diff names the stage
where keras and tfnet first part and the documented reason.

Each case is written to tmp_path and loaded back (the case format, docs/conformance.md): a Dense 3-4-2 network,
MSE, batches of 4, 2 steps. Both implementations that run both profiles (NumPy reference, engine) are used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tfnet_train.conformance.case import Case, CaseArrays, DenseSpec, LossSpec, ModelSpec, load, optimizer_spec, save
from tfnet_train.conformance.explain import DIFFERENCES, ProfileDiff, diff_profiles

IMPLEMENTATIONS = ("numpy", "engine")


def build_case(directory: Path, name: str, optimizer: dict[str, Any], metrics: tuple[str, ...] = (),
               sample_weight: bool = False) -> Case:
    """A 2-step Dense case saved under ``directory`` and loaded back."""
    rng = np.random.default_rng(7)
    model = ModelSpec(3, (DenseSpec(4, "tanh"), DenseSpec(2, "linear")))
    case = Case(name=name, semantics="keras", model=model, loss=LossSpec("mse"), optimizer=optimizer_spec(optimizer),
                batch_size=4, steps=2, metrics=metrics)
    weights = [rng.uniform(-1.0, 1.0, shape).astype(np.float32) for shape in model.weight_shapes()]
    x = rng.normal(size=(8, 3)).astype(np.float32)
    y = rng.normal(size=(8, 2)).astype(np.float32)
    sw = rng.uniform(0.2, 2.0, 8).astype(np.float32) if sample_weight else None
    return load(save(case, CaseArrays(weights, x, y, sw), directory))


@dataclass(frozen=True)
class Row:
    """A semantics.md row, the case that shows it, where the profiles part and a phrase of the reason."""

    row: int
    key: str
    optimizer: dict[str, Any]
    step: int
    stage: str
    how: str
    phrase: str
    metrics: tuple[str, ...] = ()
    sample_weight: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"row{self.row}-{self.key}-{'-'.join(self.metrics) or self.optimizer['name']}"


SGD = {"name": "sgd", "learning_rate": 0.1}
ROWS = (
    Row(1, "clipnorm", {**SGD, "clipnorm": 0.01}, 0, "clipped_gradients", "values",
        "clipnorm changes nothing under tfnet"),
    Row(1, "clipvalue", {**SGD, "clipvalue": 0.01}, 0, "clipped_gradients", "values",
        "clipvalue changes nothing under tfnet"),
    Row(1, "global_clipnorm", {**SGD, "global_clipnorm": 0.01}, 0, "clipped_gradients", "values",
        "global_clipnorm changes nothing under tfnet"),
    Row(3, "nesterov", {**SGD, "momentum": 0.9, "nesterov": True}, 0, "weights", "values",
        "constructor assigns the argument to itself"),
    # epsilon 0: sqrt(rms) + 0 == sqrt(rms + 0), so only the momentum difference remains.
    Row(4, "rmsprop_momentum", {"name": "rmsprop", "learning_rate": 0.01, "momentum": 0.9, "epsilon": 0.0}, 0,
        "optimizer_state", "keys", "never sets the base class's momentum flag",
        extra={"keras": "optimizer_state/momentum/0"}),
    Row(5, "rmsprop_epsilon", {"name": "rmsprop", "learning_rate": 0.01, "epsilon": 0.1}, 0, "weights", "values",
        "w -= lr * g / (sqrt(rms) + epsilon)"),
    Row(6, "rmsprop_centered", {"name": "rmsprop", "learning_rate": 0.01, "epsilon": 0.0, "centered": True}, 0,
        "weights", "error", "RMSprop(centered=True) throws NotImplementedException", extra={"error": "centered"}),
    Row(7, "amsgrad", {"name": "adam", "learning_rate": 0.01, "amsgrad": True}, 0, "weights", "error",
        "Adam(amsgrad=True) throws NotImplementedException", extra={"error": "amsgrad"}),
    Row(11, "sample_weight_broadcast", SGD, 0, "loss", "values", "mean(w) * mean(loss)", sample_weight=True),
    Row(14, "metric_names", SGD, 0, "metrics", "keys", "'acc'/'accuracy' as accuracy", metrics=("acc",),
        extra={"keras": "metrics/acc", "tfnet": "metrics/accuracy"}),
    Row(14, "metric_names", SGD, 0, "metrics", "keys", "'mae'/'mean_absolute_error' as mean_absolute_error",
        metrics=("mae",), extra={"keras": "metrics/mae", "tfnet": "metrics/mean_absolute_error"}),
    Row(14, "metric_names", SGD, 0, "metrics", "keys",
        "'mape'/'mean_absolute_percentage_error' as mean_absolute_percentage_error", metrics=("mape",),
        extra={"keras": "metrics/mape", "tfnet": "metrics/mean_absolute_percentage_error"}),
    Row(15, "metric_unsupported", SGD, 0, "metrics", "error", "throws NotImplementedException for any other",
        metrics=("mse",), extra={"error": "'mse'"}),
)


def _diff(tmp_path: Path, row: Row, implementation: str, a: str = "keras", b: str = "tfnet") -> ProfileDiff:
    case = build_case(tmp_path, f"row{row.row}_{row.key}", row.optimizer, row.metrics, row.sample_weight)
    return diff_profiles(case, a, b, implementation)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.id)
def test_diff_names_the_stage_and_the_documented_reason(tmp_path: Path, row: Row, implementation: str) -> None:
    result = _diff(tmp_path, row, implementation)
    parting = result.parting
    assert (parting.step, parting.stage, parting.how) == (row.step, row.stage, row.how)
    assert [x.key for x in parting.reasons] == [row.key]
    text = result.explain()
    assert f"the profiles first part at step {row.step}, stage {row.stage}" in text
    assert row.phrase in text and f"docs/semantics.md row {row.row}]" in text
    if row.how == "error":
        assert result.run_a.status == "ok" and result.run_b.status == "error"
        assert row.extra["error"] in result.run_b.message
        assert "under 'tfnet' the run did not complete" in text and "under which the tfnet run raises" in text
    elif row.how == "keys":
        c = result.comparison
        assert row.extra["keras"] in c.only_in_a
        assert "tfnet" not in row.extra or row.extra["tfnet"] in c.only_in_b
    else:
        assert result.comparison.first_divergence.stage == row.stage
        assert [x.key for x in result.explaining] == [row.key]


def _row(key: str, metrics: tuple[str, ...] = ()) -> Row:
    return next(r for r in ROWS if r.key == key and r.metrics == metrics)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_rmsprop_momentum_values_part_at_the_second_update(tmp_path: Path, implementation: str) -> None:
    """Without momentum history the first RMSprop update is the same; the second one is not."""
    result = _diff(tmp_path, _row("rmsprop_momentum"), implementation)
    d = result.comparison.first_divergence
    assert (d.step, d.stage) == (1, "weights")
    assert [x.key for x in result.explaining] == ["rmsprop_momentum"]
    assert "rmsprop_momentum, as above" in result.explain()


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_the_parting_does_not_depend_on_the_order_of_the_profiles(tmp_path: Path, implementation: str) -> None:
    for row in (_row("nesterov"), _row("metric_names", ("mae",)), _row("amsgrad")):
        result = _diff(tmp_path, row, implementation, a="tfnet", b="keras")
        parting = result.parting
        assert (parting.stage, parting.how, [x.key for x in parting.reasons]) == (row.stage, row.how, [row.key])


def test_same_profile_does_not_part(tmp_path: Path) -> None:
    result = _diff(tmp_path, _row("rmsprop_epsilon"), "numpy", a="tfnet", b="tfnet")
    assert result.parting is None and result.comparison.passed
    assert "no divergence in the values both profiles record" in result.explain()


def test_constant_learning_rate_adamw_does_not_part(tmp_path: Path) -> None:
    """Row 23 needs a learning rate changed between steps, which a case cannot express: with one constant
    learning rate the two decays agree within tolerance, and the diff says so."""
    case = build_case(tmp_path, "row23_adamw", {"name": "adamw", "learning_rate": 0.01, "weight_decay": 0.1})
    result = diff_profiles(case, implementation="numpy")
    assert result.parting is None and result.comparison.passed
    assert "differ only in rounding" in result.explain()


def test_every_step_level_difference_has_a_row_case() -> None:
    """Each documented difference that can make the profiles part in a case is exercised above (or, for rows
    that need a case field of their own, in test_conformance_case_extensions.py)."""
    from test_conformance_case_extensions import SHOWN_ROWS

    parting = {d.key for d in DIFFERENCES if d.row is not None and d.key != "adamw_decay"}
    assert parting == {r.key for r in ROWS} | {key for keys in SHOWN_ROWS.values() for key in keys}
