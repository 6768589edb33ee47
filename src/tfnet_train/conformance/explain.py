"""Run one case under two semantics profiles and explain in words where and why they part.

``DIFFERENCES`` lists the documented differences between ``keras`` (Keras 3) and ``tfnet`` (TensorFlow.NET
0.15): the stage where each shows first, a sentence, the TensorFlow.NET source file it comes from, and a
predicate saying whether it applies to a case.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tfnet_train.conformance.case import Case
from tfnet_train.conformance.compare import Comparison, compare_traces
from tfnet_train.conformance.runner import ImplementationRun, run_implementation

TFNET_ROOT = "SciSharp/TensorFlow.NET: "


def _opt(case: Case, *names: str) -> bool:
    return case.optimizer.name in names


@dataclass(frozen=True)
class ProfileDifference:
    """One documented keras/tfnet difference."""

    key: str
    stage: str
    sentence: str
    source: str
    applies: Callable[[Case], bool]


DIFFERENCES: tuple[ProfileDifference, ...] = (
    ProfileDifference(
        "clipnorm", "clipped_gradients",
        "clipnorm is ignored under tfnet (OptimizerV2.clip_gradients returns its input).",
        "src/TensorFlowNET.Keras/Optimizers/OptimizerV2.cs", lambda c: c.optimizer["clipnorm"] is not None),
    ProfileDifference(
        "clipvalue", "clipped_gradients",
        "clipvalue is ignored under tfnet (OptimizerV2.clip_gradients returns its input).",
        "src/TensorFlowNET.Keras/Optimizers/OptimizerV2.cs", lambda c: c.optimizer["clipvalue"] is not None),
    ProfileDifference(
        "global_clipnorm", "clipped_gradients",
        "global_clipnorm is ignored under tfnet (OptimizerV2.clip_gradients returns its input).",
        "src/TensorFlowNET.Keras/Optimizers/OptimizerV2.cs",
        lambda c: c.optimizer["global_clipnorm"] is not None),
    ProfileDifference(
        "sample_weight_broadcast", "loss",
        "Under tfnet the (B, 1) sample weights left by expand_1d multiply the (B,) per-sample losses with "
        "broadcasting, a (B, B) product, so the weighted loss is mean(w) * mean(loss) instead of mean(w * loss).",
        "src/TensorFlowNET.Keras/Utils/losses_utils.cs", lambda c: c.arrays is not None
        and c.arrays.sample_weight is not None),
    ProfileDifference(
        "nesterov", "weights",
        "SGD nesterov is never applied under tfnet (the SGD constructor assigns the nesterov argument to itself), "
        "so the update is plain momentum.",
        "src/TensorFlowNET.Keras/Optimizers/SGD.cs",
        lambda c: _opt(c, "sgd") and c.optimizer["nesterov"] and c.optimizer["momentum"] > 0),
    ProfileDifference(
        "rmsprop_epsilon", "weights",
        "RMSprop divides by sqrt(rms) + epsilon under tfnet, by sqrt(rms + epsilon) under Keras 3.",
        "src/TensorFlowNET.Keras/Optimizers/RMSprop.cs", lambda c: _opt(c, "rmsprop")),
    ProfileDifference(
        "rmsprop_momentum", "weights",
        "RMSprop momentum is ignored under tfnet (its momentum flag is never set, no momentum slot exists).",
        "src/TensorFlowNET.Keras/Optimizers/RMSprop.cs", lambda c: _opt(c, "rmsprop") and c.optimizer["momentum"] > 0),
    ProfileDifference(
        "rmsprop_centered", "weights",
        "centered RMSprop throws NotImplementedException under tfnet.",
        "src/TensorFlowNET.Keras/Optimizers/RMSprop.cs", lambda c: _opt(c, "rmsprop") and c.optimizer["centered"]),
    ProfileDifference(
        "amsgrad", "weights",
        "Adam with amsgrad throws NotImplementedException under tfnet.",
        "src/TensorFlowNET.Keras/Optimizers/Adam.cs", lambda c: _opt(c, "adam", "adamw") and c.optimizer["amsgrad"]),
    ProfileDifference(
        "adamw_decay", "weights",
        "AdamW under tfnet adds -lr0 * var * weight_decay (lr0: the constructor's learning rate) before the Adam "
        "step; Keras 3 subtracts var * weight_decay * lr. With a constant learning rate they differ only in "
        "rounding.",
        "src/TensorFlowNET.Keras/Optimizers/AdamW.cs", lambda c: _opt(c, "adamw")),
    ProfileDifference(
        "adam_kernel", "optimizer_state",
        "Adam under tfnet runs TensorFlow's ResourceApplyAdam kernel, which computes 1 - beta_1 and 1 - beta_2 "
        "in float32 (Keras 3 in double precision): m and v differ in the last bits.",
        "src/TensorFlowNET.Keras/Optimizers/Adam.cs", lambda c: _opt(c, "adam", "adamw")),
    ProfileDifference(
        "metric_names", "metrics",
        "TF.NET reports 'acc' as 'accuracy', 'mae' as 'mean_absolute_error' and 'mape' as "
        "'mean_absolute_percentage_error', so those logs have other keys under tfnet.",
        "src/TensorFlowNET.Keras/Engine/MetricsContainer.cs",
        lambda c: any(m in ("acc", "mae", "mape") for m in c.metrics)),
    ProfileDifference(
        "metric_unsupported", "metrics",
        "TF.NET's MetricsContainer throws NotImplementedException for metric strings other than accuracy/acc, "
        "mae and mape (here: 'mse').",
        "src/TensorFlowNET.Keras/Engine/MetricsContainer.cs", lambda c: "mse" in c.metrics),
)


def applicable(case: Case) -> list[ProfileDifference]:
    """The documented differences that apply to ``case``."""
    return [d for d in DIFFERENCES if d.applies(case)]


@dataclass
class ProfileDiff:
    """The same case run by one implementation under profiles ``a`` and ``b``."""

    case: Case
    implementation: str
    a: str
    b: str
    run_a: ImplementationRun
    run_b: ImplementationRun
    comparison: Comparison | None = None
    differences: list[ProfileDifference] = field(default_factory=list)

    @property
    def explaining(self) -> list[ProfileDifference]:
        """Applicable differences that show at the stage of the first divergence."""
        d = self.comparison.first_divergence if self.comparison else None
        if d is None:
            return []
        return [x for x in self.differences if x.stage == d.stage]

    def explain(self) -> str:
        """The divergence and its reasons, in words."""
        lines = [f"case {self.case.name}: {self.implementation} under semantics {self.a!r} vs {self.b!r}"]
        for run, profile in ((self.run_a, self.a), (self.run_b, self.b)):
            if run.status != "ok":
                lines.append(f"  under {profile!r} the run did not complete: {run.message}")
        c = self.comparison
        if c is not None:
            d = c.first_divergence
            if d is None:
                lines.append("  no divergence: both profiles agree on every compared value within tolerance "
                             f"(rtol {c.tolerance.rtol:g}, atol {c.tolerance.atol:g})")
            else:
                lines.append(f"  first divergence: {d.describe(self.a, self.b)}")
                if self.explaining:
                    lines.append(f"  explained by (documented differences that show at {d.stage}):")
                    lines.extend(f"    - {x.sentence} [{TFNET_ROOT}{x.source}]" for x in self.explaining)
                else:
                    lines.append(f"  no documented difference that applies to this case shows at {d.stage}: "
                                 "one of the two profiles is wrong here, or this is an undocumented difference")
            for label, keys in ((self.a, c.only_in_a), (self.b, c.only_in_b)):
                if keys:
                    lines.append(f"  keys only under {label!r}: {', '.join(keys)}")
        others = [x for x in self.differences if x not in self.explaining]
        if others:
            lines.append("  other documented differences that apply to this case:")
            lines.extend(f"    - [{x.stage}] {x.sentence} [{TFNET_ROOT}{x.source}]" for x in others)
        return "\n".join(lines)


def diff_profiles(case: Case, a: str = "keras", b: str = "tfnet", implementation: str = "engine") -> ProfileDiff:
    """Run ``case`` with ``implementation`` under profiles ``a`` and ``b`` and compare (``b`` is the reference)."""
    run_a = run_implementation(implementation, case.with_semantics(a))
    run_b = run_implementation(implementation, case.with_semantics(b))
    result = ProfileDiff(case, implementation, a, b, run_a, run_b, differences=applicable(case))
    if run_a.status == "ok" and run_b.status == "ok":
        result.comparison = compare_traces(run_a.traces or [], run_b.traces or [], case.tolerance, (a, b))
    return result
