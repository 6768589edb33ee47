"""The C# test suites as pytest sees them: their NUnit fixtures and test methods, read from the sources (so
collection needs no build), and one run per runtime and suite shared by every fixture's item."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from conftest import DOTNET_BIN, ROOT

SUITES = ("TfNetTrain.Tests", "TfNetTrain.Reference.Tests")
RUNTIMES = ("mono", "coreclr")
# Streamed C# batches (TensorFlowNetStreamTests) can deadlock a .NET collection under Mono's default hybrid thread
# suspension (docs/bridge.md, from_generator).
MONO_ENV = {"TF_CPP_MIN_LOG_LEVEL": "3", "MONO_THREADS_SUSPEND": "preemptive"}

_NAMESPACE = re.compile(r"^\s*namespace\s+([\w.]+)", re.MULTILINE)
_FIXTURE = re.compile(r"\[TestFixture[^\]]*\]\s*(?:\[[^\]]*\]\s*)*public\s+(?:sealed\s+)?class\s+(\w+)")
_METHOD = r"\]\s*(?:\[[^\]]*\]\s*)*public\s+(?:async\s+)?(?:static\s+)?[\w<>\[\]]+\s+(\w+)\s*\("
_TEST = re.compile(r"\[(?:Test|TestCase)\b(?!Source)[^\]]*" + _METHOD)
_SOURCED = re.compile(r"\[TestCaseSource\b[^\]]*" + _METHOD)


@dataclass(frozen=True)
class Fixture:
    suite: str
    name: str  # full name, Namespace.Class
    tests: frozenset[str]  # [Test] / [TestCase] methods: each must run under its own name
    sourced: frozenset[str]  # [TestCaseSource] methods: their cases may be renamed (SetName), so only counted


def fixtures(suite: str) -> list[Fixture]:
    """The ``[TestFixture]`` classes of ``dotnet/tests/<suite>`` with the test methods each declares."""
    found: dict[str, tuple[set[str], set[str]]] = {}
    for source in sorted((ROOT / "dotnet" / "tests" / suite).glob("*.cs")):
        text = source.read_text(encoding="utf-8")
        starts = list(_FIXTURE.finditer(text))
        for i, match in enumerate(starts):
            namespaces = _NAMESPACE.findall(text, 0, match.start())
            name = f"{namespaces[-1]}.{match.group(1)}" if namespaces else match.group(1)
            body = text[match.end(): starts[i + 1].start() if i + 1 < len(starts) else len(text)]
            tests, sourced = found.setdefault(name, (set(), set()))
            tests.update(_TEST.findall(body))
            sourced.update(_SOURCED.findall(body))
    return [Fixture(suite, name, frozenset(t), frozenset(s)) for name, (t, s) in sorted(found.items())]


def assembly(runtime: str, suite: str) -> Path:
    folder = DOTNET_BIN / "coreclr" if runtime == "coreclr" else DOTNET_BIN
    path = folder / f"{suite}.dll"
    if not path.exists():
        raise RuntimeError(f"C# build output {path} missing: run `make build` (or `make test`)")
    return path


def run(runtime: str, suite: str, selected: list[str] | None) -> tuple[dict[str, str | None], str]:
    """Every case that ran (full name -> None when it passed, else its message) and the runner's output, for the
    ``selected`` fixtures (all when None)."""
    if runtime == "coreclr":
        from coreclr import run_tests

        result = run_tests(assembly(runtime, suite), fixtures=selected)
    else:
        from nunit import run_nunit

        result = run_nunit(assembly(runtime, suite), env=MONO_ENV, fixtures=selected)
    return result.cases, result.output


def cases_of(cases: dict[str, str | None], fixture: str) -> dict[str, str | None]:
    """The cases of ``fixture`` (their names start with it and a dot)."""
    return {name: outcome for name, outcome in cases.items() if name.startswith(fixture + ".")}


def method_of(case: str, fixture: str) -> str:
    """The method a case runs: its name after the fixture, without a [TestCase]'s arguments."""
    return case[len(fixture) + 1:].split("(", 1)[0]
