"""Run one case under two semantics profiles and explain in words where and why they part.

``DIFFERENCES`` lists the documented differences between ``keras`` (Keras 3) and ``tfnet`` (TensorFlow.NET
0.15) that a case can show: the row of docs/semantics.md it comes from, the stage where the two profiles'
values first part, a sentence, the TensorFlow.NET source files, and a predicate saying whether it applies to
a case. A difference may also change which trace keys a profile records (``key_stage``: a slot or a log only
one profile has) or make one profile's run raise instead of training (``raises``, ``raises_under``).

The profiles *part* where the first of these shows: a value beyond the case's tolerance (the comparison's
first divergence), a trace key only one profile records (keys are the same at every step, so they count at
step 0), or a run that raises.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tfnet_train.conformance.case import KERAS_LOSS_STRINGS, OPTIMIZER_DEFAULTS, Case, KerasModelSpec
from tfnet_train.conformance.compare import Comparison, compare_traces, ordered_keys
from tfnet_train.conformance.runner import ImplementationRun, run_implementation
from tfnet_train.engine.trace import STAGES, stage_of

TFNET_ROOT = "SciSharp/TensorFlow.NET: "
SEMANTICS_DOC = "docs/semantics.md"
KERAS_SRC = "src/TensorFlowNET.Keras/"


def _opt(case: Case, *names: str) -> bool:
    """The case builds one of these optimizers from an object (a string optimizer: see row 8)."""
    return not case.optimizer.as_string and case.optimizer.name in names


def _optimizer_string(case: Case) -> str | None:
    """The optimizer string of a string-compiled case, lower-cased; None when the optimizer is an object."""
    return case.optimizer.name.lower() if case.optimizer.as_string else None


def _regularized(case: Case) -> bool:
    """Some layer adds a regularization loss (Dense form: an L2 kernel regularizer; a Keras config: any
    regularizer in a top-level layer's config)."""
    if isinstance(case.model, KerasModelSpec):
        keys = ("kernel_regularizer", "bias_regularizer", "recurrent_regularizer", "activity_regularizer")
        return any(layer["config"].get(k) for layer in case.model.config["layers"] for k in keys)
    return any(layer.kernel_l2 for layer in case.model.layers)


def _keras(*paths: str) -> tuple[str, ...]:
    return tuple(KERAS_SRC + p for p in paths)


@dataclass(frozen=True)
class ProfileDifference:
    """One documented keras/tfnet difference.

    ``row``: its row in docs/semantics.md (None: a rounding-level difference the table does not list).
    ``stage``: where the two profiles' values first part (for ``raises``, where that run raises).
    ``sources``: the TensorFlow.NET files, relative to the repository root.
    ``key_stage``: the stage whose trace keys differ between the profiles, if any.
    ``raises``: the run under profile ``raises_under`` raises instead of training.
    """

    key: str
    row: int | None
    stage: str
    sentence: str
    sources: tuple[str, ...]
    applies: Callable[[Case], bool]
    key_stage: str | None = None
    raises: bool = False
    raises_under: str = "tfnet"

    def cite(self) -> str:
        """``[SciSharp/TensorFlow.NET: files; docs/semantics.md row n]``."""
        row = f"; {SEMANTICS_DOC} row {self.row}" if self.row is not None else ""
        return f"[{TFNET_ROOT}{', '.join(self.sources)}{row}]"


def _loss_string(case: Case) -> str | None:
    """The loss string of a string-compiled case ('' for loss=None); None when the loss is an object."""
    if not case.loss.as_string:
        return None
    return case.loss.name or ""


def _clipping(argument: str) -> ProfileDifference:
    return ProfileDifference(
        argument, 1, "clipped_gradients",
        f"{argument} changes nothing under tfnet: TF.NET's OptimizerV2 aggregate_gradients and clip_gradients "
        "return their input, so the gradients are applied unclipped.",
        _keras("Optimizers/OptimizerV2.cs", "Engine/Model.Train.cs"),
        lambda c: c.optimizer.params.get(argument) is not None)


DIFFERENCES: tuple[ProfileDifference, ...] = (
    _clipping("clipnorm"),
    _clipping("clipvalue"),
    _clipping("global_clipnorm"),
    ProfileDifference(
        "regularization", 2, "loss",
        "Regularization losses are not part of the training loss under tfnet: TF.NET's training step computes "
        "the compiled loss alone, so a kernel regularizer's L2 term (f * sum(kernel**2)) is neither in the loss "
        "nor in the kernel's gradient.",
        _keras("Engine/LossesContainer.cs", "Engine/Model.Train.cs"),
        _regularized),
    ProfileDifference(
        "optimizer_string", 8, "weights",
        "Any optimizer string gives TF.NET's RMSprop(learning_rate=0.001, rho=0.9, epsilon=1e-7) under tfnet "
        "(epsilon outside the square root, no momentum), where Keras 3 builds the named optimizer with its "
        "defaults.",
        _keras("Engine/Model.Compile.cs"),
        lambda c: _optimizer_string(c) in OPTIMIZER_DEFAULTS, key_stage="optimizer_state"),
    ProfileDifference(
        "optimizer_string_unknown", 8, "weights",
        "TF.NET's string compile gives RMSprop for any optimizer string, even one it does not know; Keras 3 "
        "cannot interpret the string and raises a ValueError, so the keras run does not train.",
        _keras("Engine/Model.Compile.cs"),
        lambda c: _optimizer_string(c) not in (None, *OPTIMIZER_DEFAULTS), raises=True, raises_under="keras"),
    ProfileDifference(
        "loss_string", 9, "loss",
        "TF.NET's string compile knows exactly 'mse' and 'mae' (case-sensitive): any other loss string is "
        "MSE under tfnet, where Keras 3 computes the loss it names (here MAE).",
        _keras("Engine/Model.Compile.cs"),
        lambda c: _loss_string(c) not in (None, "", "mse", "mae") and KERAS_LOSS_STRINGS.get(c.loss.name) == "mae"),
    ProfileDifference(
        "loss_string_unknown", 9, "loss",
        "TF.NET's string compile falls back to MSE for a loss string it does not know; Keras 3 cannot "
        "interpret the string and raises a ValueError, so the keras run does not train.",
        _keras("Engine/Model.Compile.cs"),
        lambda c: _loss_string(c) not in (None, "") and c.loss.name not in KERAS_LOSS_STRINGS,
        raises=True, raises_under="keras"),
    ProfileDifference(
        "loss_none", 10, "loss",
        "loss=None compiles MSE under tfnet; Keras 3 has no loss to compute and raises a ValueError at the "
        "first step, so the keras run does not train.",
        _keras("Engine/Model.Compile.cs"),
        lambda c: _loss_string(c) == "", raises=True, raises_under="keras"),
    ProfileDifference(
        "sample_weight_broadcast", 11, "loss",
        "Sample weights scale each batch's loss by their mean under tfnet: Expand1d turns the weights (B,) "
        "into (B, 1), the weighted loss multiplies them with the (B,) per-sample losses without squeezing, a "
        "(B, B) product whose sum is divided by B*B, so the loss is mean(w) * mean(loss) instead of "
        "sum(w * loss) / B.",
        _keras("Engine/DataAdapters/DataAdapter.cs", "Losses/Loss.cs", "Utils/losses_utils.cs"),
        lambda c: c.arrays is not None and c.arrays.sample_weight is not None),
    ProfileDifference(
        "nesterov", 3, "weights",
        "SGD nesterov is never applied under tfnet: TF.NET's SGD constructor assigns the argument to itself, "
        "the field stays false, and momentum runs as plain momentum.",
        _keras("Optimizers/SGD.cs"),
        lambda c: _opt(c, "sgd") and c.optimizer["nesterov"] and c.optimizer["momentum"] > 0),
    ProfileDifference(
        "rmsprop_momentum", 4, "weights",
        "RMSprop momentum is ignored under tfnet: TF.NET's RMSprop never sets the base class's momentum flag, "
        "so there is no momentum slot and no momentum update.",
        _keras("Optimizers/RMSprop.cs", "Optimizers/OptimizerV2.cs"),
        lambda c: _opt(c, "rmsprop") and c.optimizer["momentum"] > 0, key_stage="optimizer_state"),
    ProfileDifference(
        "rmsprop_epsilon", 5, "weights",
        "RMSprop puts epsilon outside the square root under tfnet: w -= lr * g / (sqrt(rms) + epsilon), where "
        "Keras 3 computes w -= lr * g / sqrt(rms + epsilon).",
        _keras("Optimizers/RMSprop.cs"), lambda c: _opt(c, "rmsprop") and c.optimizer["epsilon"] > 0),
    ProfileDifference(
        "rmsprop_centered", 6, "weights",
        "Centered RMSprop is not implemented in TF.NET: RMSprop(centered=True) throws NotImplementedException "
        "at the first update; the tfnet profile raises NotImplementedError there, weights untouched.",
        _keras("Optimizers/RMSprop.cs"), lambda c: _opt(c, "rmsprop") and c.optimizer["centered"], raises=True),
    ProfileDifference(
        "amsgrad", 7, "weights",
        "AMSGrad is not implemented in TF.NET: Adam(amsgrad=True) throws NotImplementedException at the first "
        "update; the tfnet profile raises NotImplementedError there, weights untouched.",
        _keras("Optimizers/Adam.cs"), lambda c: _opt(c, "adam", "adamw") and c.optimizer["amsgrad"], raises=True),
    ProfileDifference(
        "adamw_decay", 23, "weights",
        "AdamW decays with the learning rate given to its constructor under tfnet (w += -lr0 * w * weight_decay, "
        "before the Adam step), Keras 3 with the current learning rate; with the one constant learning rate of "
        "a case the two differ only in rounding.",
        _keras("Optimizers/AdamW.cs"), lambda c: _opt(c, "adamw")),
    ProfileDifference(
        "adam_kernel", None, "optimizer_state",
        "Adam under tfnet runs TensorFlow's ResourceApplyAdam kernel, which computes 1 - beta_1 and 1 - beta_2 "
        "in float32 (Keras 3 in double precision): m and v differ in the last bits.",
        _keras("Optimizers/Adam.cs"), lambda c: _opt(c, "adam", "adamw")),
    ProfileDifference(
        "metric_names", 14, "metrics",
        "TF.NET logs 'acc'/'accuracy' as accuracy, 'mae'/'mean_absolute_error' as mean_absolute_error and "
        "'mape'/'mean_absolute_percentage_error' as mean_absolute_percentage_error, so under tfnet the logs of "
        "'acc', 'mae' and 'mape' have other keys.",
        _keras("Engine/MetricsContainer.cs", "Metrics/MetricsApi.cs"),
        lambda c: any(m in ("acc", "mae", "mape") for m in c.metrics), key_stage="metrics"),
    ProfileDifference(
        "metric_unsupported", 15, "metrics",
        "TF.NET's MetricsContainer knows only the metric strings acc/accuracy, mae/mean_absolute_error and "
        "mape/mean_absolute_percentage_error and throws NotImplementedException for any other (here 'mse') at "
        "the first training step; the tfnet profile raises a clear error instead.",
        _keras("Engine/MetricsContainer.cs"), lambda c: "mse" in c.metrics, raises=True),
)


def applicable(case: Case) -> list[ProfileDifference]:
    """The documented differences that apply to ``case``."""
    return [d for d in DIFFERENCES if d.applies(case)]


def _stage_rank(stage: str) -> int:
    return STAGES.index(stage) if stage in STAGES else len(STAGES)


@dataclass(frozen=True)
class Parting:
    """Where two profiles first part: ``step`` and ``stage``, ``how`` ('values', 'keys' or 'error'), and the
    applicable documented differences that explain it (``stage`` is '' for an unexplained error)."""

    step: int
    stage: str
    how: str
    reasons: tuple[ProfileDifference, ...]

    def describe(self) -> str:
        where = f"step {self.step}, stage {self.stage}" if self.stage else f"step {self.step}"
        what = {"values": "values differ beyond tolerance", "keys": "a trace key only one profile records",
                "error": "one profile's run raised"}[self.how]
        return f"the profiles first part at {where} ({what})"


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

    def _failed(self) -> list[str]:
        return [p for run, p in ((self.run_a, self.a), (self.run_b, self.b)) if run.status != "ok"]

    @property
    def explaining(self) -> list[ProfileDifference]:
        """Applicable differences that show at the stage of the first divergence."""
        d = self.comparison.first_divergence if self.comparison else None
        if d is None:
            return []
        return [x for x in self.differences if x.stage == d.stage and not x.raises]

    @property
    def key_stage(self) -> str | None:
        """The earliest stage with a trace key only one profile records (None when the keys agree)."""
        c = self.comparison
        keys = ordered_keys([*c.only_in_a, *c.only_in_b]) if c else []
        return stage_of(keys[0]) if keys else None

    @property
    def explaining_keys(self) -> list[ProfileDifference]:
        """Applicable differences that change the trace keys at :attr:`key_stage`."""
        stage = self.key_stage
        return [x for x in self.differences if stage is not None and x.key_stage == stage]

    @property
    def raising(self) -> list[ProfileDifference]:
        """Applicable differences that make one profile's run raise, when exactly that run failed."""
        failed = self._failed()
        if len(failed) != 1 or self.a == self.b:
            return []
        return [x for x in self.differences if x.raises and x.raises_under == failed[0]]

    @property
    def parting(self) -> Parting | None:
        """Where the profiles first part (None: they agree on every compared value and key)."""
        failed = self._failed()
        if len(failed) == 1:
            reasons = sorted(self.raising, key=lambda x: _stage_rank(x.stage))
            return Parting(0, reasons[0].stage if reasons else "", "error", tuple(reasons))
        if self.comparison is None:
            return None
        candidates = []
        d = self.comparison.first_divergence
        if d is not None:
            candidates.append(Parting(d.step, d.stage, "values", tuple(self.explaining)))
        if self.key_stage is not None:
            candidates.append(Parting(0, self.key_stage, "keys", tuple(self.explaining_keys)))
        if not candidates:
            return None
        return min(candidates, key=lambda p: (p.step, _stage_rank(p.stage), p.how != "values"))

    def explain(self) -> str:
        """Where the profiles part and why, in words."""
        lines = [f"case {self.case.name}: {self.implementation} under semantics {self.a!r} vs {self.b!r}"]
        parting = self.parting
        if parting is not None:
            lines.append(f"  {parting.describe()}")
        for run, profile in ((self.run_a, self.a), (self.run_b, self.b)):
            if run.status != "ok":
                lines.append(f"  under {profile!r} the run did not complete: {run.message}")
        sections = [self._explain_error, self._explain_values, self._explain_keys]
        if parting is not None and parting.how == "keys":
            sections[1:] = reversed(sections[1:])
        shown: list[ProfileDifference] = []
        for section in sections:
            shown.extend(section(lines, shown))
        others = [x for x in self.differences if x not in shown]
        if others:
            lines.append("  other documented differences that apply to this case:")
            lines.extend(f"    - [{x.stage}] {x.sentence} {x.cite()}" for x in others)
        return "\n".join(lines)

    @staticmethod
    def _reasons(lines: list[str], heading: str, reasons: list[ProfileDifference],
                 shown: list[ProfileDifference], with_stage: bool = False) -> list[ProfileDifference]:
        lines.append(f"  explained by ({heading}):")
        for x in reasons:
            if x in shown:
                lines.append(f"    - {x.key}, as above")
            else:
                lines.append(f"    - {f'[{x.stage}] ' if with_stage else ''}{x.sentence} {x.cite()}")
        return reasons

    def _explain_error(self, lines: list[str], shown: list[ProfileDifference]) -> list[ProfileDifference]:
        if len(self._failed()) != 1:
            return []
        if not self.raising:
            lines.append(f"  no documented difference makes the {self._failed()[0]!r} run raise on this case: "
                         "the case or that profile is wrong here")
            return []
        return self._reasons(lines, f"documented differences under which the {self._failed()[0]} run raises",
                             self.raising, shown, with_stage=True)

    def _explain_values(self, lines: list[str], shown: list[ProfileDifference]) -> list[ProfileDifference]:
        c = self.comparison
        if c is None:
            return []
        d = c.first_divergence
        if d is None:
            lines.append("  no divergence in the values both profiles record: they agree within tolerance "
                         f"(rtol {c.tolerance.rtol:g}, atol {c.tolerance.atol:g})")
            return []
        lines.append(f"  first divergence: {d.describe(self.a, self.b)}")
        if not self.explaining:
            lines.append(f"  no documented difference that applies to this case shows at {d.stage}: "
                         "one of the two profiles is wrong here, or this is an undocumented difference")
            return []
        return self._reasons(lines, f"documented differences that show at {d.stage}", self.explaining, shown)

    def _explain_keys(self, lines: list[str], shown: list[ProfileDifference]) -> list[ProfileDifference]:
        c = self.comparison
        if c is None or self.key_stage is None:
            return []
        for label, keys in ((self.a, c.only_in_a), (self.b, c.only_in_b)):
            if keys:
                lines.append(f"  keys only under {label!r}: {', '.join(keys)}")
        if not self.explaining_keys:
            lines.append("  no documented difference that applies to this case changes the keys at "
                         f"{self.key_stage}: an undocumented difference")
            return []
        return self._reasons(lines, f"documented differences that change the keys at {self.key_stage}",
                             self.explaining_keys, shown)


def diff_profiles(case: Case, a: str = "keras", b: str = "tfnet", implementation: str = "engine") -> ProfileDiff:
    """Run ``case`` with ``implementation`` under profiles ``a`` and ``b`` and compare (``b`` is the reference)."""
    run_a = run_implementation(implementation, case.with_semantics(a))
    run_b = run_implementation(implementation, case.with_semantics(b))
    result = ProfileDiff(case, implementation, a, b, run_a, run_b, differences=applicable(case))
    if run_a.status == "ok" and run_b.status == "ok":
        result.comparison = compare_traces(run_a.traces or [], run_b.traces or [], case.tolerance, (a, b))
    return result
