"""Run a suite of cases through several implementations and compare each one with a baseline implementation."""

from __future__ import annotations

import fnmatch
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tfnet_train.conformance import implementations
from tfnet_train.conformance.case import Case, CaseError, load
from tfnet_train.conformance.compare import Comparison, compare_traces
from tfnet_train.conformance.errors import NotApplicable
from tfnet_train.conformance.suite_builder import DEFAULT_SUITE

DEFAULT_IMPLEMENTATIONS = ("engine", "keras", "numpy", "csharp")
# Preferred baselines, most independent first.
_BASELINE_ORDER = ("numpy", "keras", "csharp", "engine")


@dataclass
class ImplementationRun:
    """One implementation on one case. ``status`` is 'ok', 'error' or 'n/a' (not applicable by design)."""

    name: str
    status: str
    traces: list[dict[str, np.ndarray]] | None = None
    message: str = ""
    seconds: float = 0.0

    @property
    def losses(self) -> list[float]:
        return [float(t["loss"]) for t in self.traces or [] if "loss" in t]


@dataclass
class PairResult:
    """Implementation ``a`` compared with ``b``. ``verdict`` is 'pass', 'fail', 'error' or 'n/a'."""

    a: str
    b: str
    verdict: str
    comparison: Comparison | None = None
    message: str = ""


@dataclass
class CaseResult:
    name: str
    case: Case | None
    runs: dict[str, ImplementationRun] = field(default_factory=dict)
    pairs: list[PairResult] = field(default_factory=list)
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.error and all(p.verdict in ("pass", "n/a") for p in self.pairs)


@dataclass
class SuiteResult:
    suite: str
    implementations: list[str]
    baseline: str
    cases: list[CaseResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Every case passed and at least one comparison was made."""
        compared = any(p.verdict == "pass" for c in self.cases for p in c.pairs)
        return compared and all(c.passed for c in self.cases)


def suite_dir(suite: str | Path) -> Path:
    """``"default"`` -> the packaged default suite; otherwise the given folder (or one .json file)."""
    return DEFAULT_SUITE if str(suite) == "default" else Path(suite)


def case_paths(suite: str | Path = "default", pattern: str | None = None) -> list[Path]:
    """The suite's case JSON files (sorted), filtered by case name or glob ``pattern``."""
    root = suite_dir(suite)
    if root.is_file():
        paths = [root]
    elif root.is_dir():
        paths = sorted(root.glob("*.json"))
    else:
        raise ValueError(f"suite must be 'default', a folder of cases or a case .json file, got {str(suite)!r}")
    if pattern:
        paths = [p for p in paths if fnmatch.fnmatchcase(p.stem, pattern)]
        if not paths:
            raise ValueError(f"case must name a case of the suite {str(root)!r}, got {pattern!r}")
    return paths


def find_case(name_or_path: str | Path, suite: str | Path = "default") -> Case:
    """Load a case given as a path to its .json or as a name in the suite."""
    path = Path(name_or_path)
    if path.suffix == ".json" or path.exists():
        return load(path)
    return load(case_paths(suite, str(name_or_path))[0])


def error_summary(err: BaseException) -> str:
    """``Type: message (at file:line)``; for errors raised inside a tf.function, only the final message line."""
    kind, text = type(err).__name__, str(err)
    if "in user code:" in text:
        text = [line for line in text.splitlines() if line.strip()][-1].strip()
        return f"{kind}: {text.removeprefix(kind + ': ')}"
    frames = traceback.extract_tb(err.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{kind}: {text}{where}"


def run_implementation(name: str, case: Case) -> ImplementationRun:
    """Run one implementation, turning any exception into an 'error' (or 'n/a') record."""
    start = time.perf_counter()
    try:
        traces = implementations.run(name, case)
    except NotApplicable as err:
        return ImplementationRun(name, "n/a", message=str(err), seconds=time.perf_counter() - start)
    except Exception as err:  # noqa: BLE001 - every failure is reported, none stops the suite
        return ImplementationRun(name, "error", message=error_summary(err), seconds=time.perf_counter() - start)
    return ImplementationRun(name, "ok", traces=traces, seconds=time.perf_counter() - start)


def choose_baseline(names: list[str], baseline: str | None = None) -> str:
    if baseline is not None:
        if baseline not in names:
            raise ValueError(f"baseline must be one of the implementations {names}, got {baseline!r}")
        return baseline
    return next((b for b in _BASELINE_ORDER if b in names), names[0])


def compare_runs(case: Case, run_a: ImplementationRun, run_b: ImplementationRun) -> PairResult:
    """The verdict for ``a`` against ``b`` on one case."""
    for run in (run_a, run_b):
        if run.status == "error":
            return PairResult(run_a.name, run_b.name, "error", message=f"{run.name}: {run.message}")
    for run in (run_a, run_b):
        if run.status == "n/a":
            return PairResult(run_a.name, run_b.name, "n/a", message=f"{run.name}: {run.message}")
    comparison = compare_traces(run_a.traces or [], run_b.traces or [], case.tolerance, (run_a.name, run_b.name))
    verdict = "pass" if comparison.passed else "fail"
    message = ""
    if comparison.first_divergence is not None:
        message = comparison.first_divergence.describe(run_a.name, run_b.name)
    elif not comparison.passed:
        message = "no trace key in common: nothing was compared"
    return PairResult(run_a.name, run_b.name, verdict, comparison, message)


def case_baseline(runs: dict[str, ImplementationRun], base: str) -> str:
    """The implementation a case's runs are compared with: ``base``, unless it does not run the case by design
    (n/a, e.g. the NumPy reference on a Conv2D case); then the first that ran it, most independent first."""
    if runs[base].status != "n/a":
        return base
    order = [b for b in _BASELINE_ORDER if b in runs] + [n for n in runs if n not in _BASELINE_ORDER]
    return next((name for name in order if runs[name].status == "ok"), base)


def run_case(case: Case, names: list[str], baseline: str | None = None) -> CaseResult:
    """Run ``case`` with every implementation and compare each with the baseline (see ``case_baseline``)."""
    result = CaseResult(case.name, case)
    for name in names:
        result.runs[name] = run_implementation(name, case)
    base = case_baseline(result.runs, choose_baseline(names, baseline))
    for name in names:
        if name != base:
            result.pairs.append(compare_runs(case, result.runs[name], result.runs[base]))
    return result


def run_suite(suite: str | Path = "default", names: list[str] | tuple[str, ...] = DEFAULT_IMPLEMENTATIONS,
              case: str | None = None, baseline: str | None = None) -> SuiteResult:
    """Run every case of ``suite`` (optionally only those matching ``case``) through ``names`` (registered names,
    or ``NAME=PATH`` for trace files)."""
    names = list(names)
    if len(names) < 2:
        raise ValueError(f"implementations: need at least two to compare, got {names}")
    names = [implementations.from_spec(name) for name in names]
    base = choose_baseline(names, baseline)
    result = SuiteResult(str(suite_dir(suite)), names, base)
    for path in case_paths(suite, case):
        try:
            loaded = load(path)
        except CaseError as err:
            result.cases.append(CaseResult(path.stem, None, error=str(err)))
            continue
        result.cases.append(run_case(loaded, names, base))
    return result
