"""Compare two implementations' traces key by key, stage by stage, and find the first divergence.

Only keys both traces have are compared (an implementation that does not expose a stage is not judged on
it). An element passes when ``|a - b| <= atol + rtol * |b|`` (NaN equals NaN); a shape mismatch or a missing
step is a divergence too. The first divergence is the earliest step, then the earliest stage in ``STAGES``
order, then the first key (natural order) and the first flat index that fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tfnet_train.conformance.case import Tolerance
from tfnet_train.engine.trace import STAGES, stage_of

Trace = dict[str, np.ndarray]


def _natural(key: str) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in key.split("/"))


def ordered_keys(keys: set[str] | Sequence[str]) -> list[str]:
    """Keys in stage order (STAGES first, unknown stages after), then natural order within a stage."""
    rank = {s: i for i, s in enumerate(STAGES)}
    return sorted(keys, key=lambda k: (rank.get(stage_of(k), len(STAGES)), stage_of(k), _natural(k)))


@dataclass
class Divergence:
    """Where two traces first part. ``reason`` is 'value', 'shape' or 'missing_step'."""

    step: int
    stage: str
    key: str
    reason: str = "value"
    index: int | None = None
    position: tuple[int, ...] | None = None
    a: float | None = None
    b: float | None = None
    abs_error: float | None = None
    allowed: float | None = None
    detail: str = ""

    def describe(self, name_a: str = "a", name_b: str = "b") -> str:
        """One line: step, stage, variable, index and both values."""
        if self.reason == "missing_step":
            return f"step {self.step}: {self.detail}"
        if self.reason == "shape":
            return f"step {self.step}, stage {self.stage}, {self.key}: {self.detail}"
        where = f"[{', '.join(map(str, self.position))}]" if self.position else ""
        return (f"step {self.step}, stage {self.stage}, {self.key}{where} (flat index {self.index}): "
                f"{name_a}={self.a:.9g} {name_b}={self.b:.9g} |diff|={self.abs_error:.3g} > "
                f"allowed {self.allowed:.3g}")


@dataclass
class StageResult:
    """All values of one stage over all steps: count, worst absolute and relative error, verdict."""

    stage: str
    compared: int = 0
    max_abs: float = 0.0
    max_rel: float = 0.0
    passed: bool = True


@dataclass
class Comparison:
    """The comparison of implementation ``a`` against ``b`` (``b`` is the reference side of the tolerance)."""

    a: str
    b: str
    tolerance: Tolerance
    stages: list[StageResult] = field(default_factory=list)
    first_divergence: Divergence | None = None
    steps_compared: int = 0
    step_errors: list[dict[str, float]] = field(default_factory=list)
    only_in_a: list[str] = field(default_factory=list)
    only_in_b: list[str] = field(default_factory=list)

    @property
    def compared(self) -> int:
        return sum(s.compared for s in self.stages)

    @property
    def passed(self) -> bool:
        return self.first_divergence is None and self.compared > 0

    def stage(self, name: str) -> StageResult | None:
        return next((s for s in self.stages if s.stage == name), None)


def _element_errors(va: np.ndarray, vb: np.ndarray, tol: Tolerance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Absolute error, allowed error and relative error per element (NaN==NaN counts as 0 error)."""
    both_nan = np.isnan(va) & np.isnan(vb)
    with np.errstate(invalid="ignore"):
        diff = np.abs(va - vb)
    diff = np.where(both_nan, 0.0, np.where(np.isnan(diff), np.inf, diff))
    allowed = tol.atol + tol.rtol * np.abs(np.nan_to_num(vb))
    nonzero = vb != 0
    rel = np.zeros_like(diff)
    np.divide(diff, np.abs(vb), out=rel, where=nonzero & ~np.isnan(vb))
    return diff, allowed, rel


def compare_traces(a: Sequence[Trace], b: Sequence[Trace], tolerance: Tolerance | None = None,
                   names: tuple[str, str] = ("a", "b")) -> Comparison:
    """Compare ``a`` against ``b`` step by step (see the module docstring)."""
    tol = tolerance or Tolerance()
    result = Comparison(a=names[0], b=names[1], tolerance=tol)
    stages: dict[str, StageResult] = {}
    if a and b:
        result.only_in_a = ordered_keys(set(a[0]) - set(b[0]))
        result.only_in_b = ordered_keys(set(b[0]) - set(a[0]))
    for step in range(max(len(a), len(b))):
        if step >= len(a) or step >= len(b):
            if result.first_divergence is None:
                short = names[0] if step >= len(a) else names[1]
                result.first_divergence = Divergence(
                    step=step, stage="steps", key="", reason="missing_step",
                    detail=f"{short} has {min(len(a), len(b))} steps, the other {max(len(a), len(b))}")
            break
        result.steps_compared += 1
        errors: dict[str, float] = {}
        for key in ordered_keys(set(a[step]) & set(b[step])):
            stage = stage_of(key)
            record = stages.setdefault(stage, StageResult(stage))
            va = np.asarray(a[step][key], dtype=np.float64)
            vb = np.asarray(b[step][key], dtype=np.float64)
            if va.shape != vb.shape:
                record.passed = False
                if result.first_divergence is None:
                    result.first_divergence = Divergence(
                        step=step, stage=stage, key=key, reason="shape",
                        detail=f"shape {va.shape} in {names[0]} vs {vb.shape} in {names[1]}")
                continue
            diff, allowed, rel = _element_errors(va.ravel(), vb.ravel(), tol)
            record.compared += diff.size
            if diff.size:
                record.max_abs = max(record.max_abs, float(diff.max()))
                record.max_rel = max(record.max_rel, float(rel.max()))
                errors[stage] = max(errors.get(stage, 0.0), float(diff.max()))
            bad = np.flatnonzero(diff > allowed)
            if bad.size:
                record.passed = False
                if result.first_divergence is None:
                    i = int(bad[0])
                    result.first_divergence = Divergence(
                        step=step, stage=stage, key=key, index=i,
                        position=tuple(int(p) for p in np.unravel_index(i, va.shape)) if va.ndim else (),
                        a=float(va.ravel()[i]), b=float(vb.ravel()[i]), abs_error=float(diff[i]),
                        allowed=float(allowed[i]))
        result.step_errors.append(errors)
    rank = {s: i for i, s in enumerate(STAGES)}
    result.stages = sorted(stages.values(), key=lambda s: (rank.get(s.stage, len(STAGES)), s.stage))
    return result
