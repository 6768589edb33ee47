"""Runs C# on .NET (CoreCLR): which .NET installation compiles and which runs, the environment it needs here, and
the project's test runner (dotnet/bin/coreclr/TfNetTrain.TestRunner.dll: one line per test, "N passed, N failed").

mcs reads the shared framework of .NET Core 3.1 (the `coreclr` extra) but not that of .NET 7 or later, so test hosts
are compiled against the oldest framework found and run on the newest runtime (`rollForward: LatestMajor`)."""

from __future__ import annotations

import ctypes.util
import importlib.util
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

RUNNER = "TfNetTrain.TestRunner.dll"
_SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$", re.MULTILINE)


def _package_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)  # a top-level name: the package is located, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(spec.submodule_search_locations[0])


def _frameworks(runnable: bool = False) -> list[tuple[tuple[int, ...], Path]]:
    """(version, folder) of every Microsoft.NETCore.App in DOTNET_ROOT and the runtime wheels, oldest first;
    ``runnable``: only where the installation's `dotnet` host is executable."""
    roots = [Path(os.environ["DOTNET_ROOT"])] if os.environ.get("DOTNET_ROOT") else []
    for package, relative in (("dotnetcore2", "bin"), ("dnv", "net/runtime/.net")):
        folder = _package_dir(package)
        if folder is not None:
            roots.append(folder / relative)
    found = []
    for root in roots:
        shared = root / "shared" / "Microsoft.NETCore.App"
        if shared.is_dir() and (not runnable or os.access(root / "dotnet", os.X_OK)):
            for version in shared.iterdir():
                found.append((tuple(int(p) for p in re.findall(r"\d+", version.name)[:3]), version))
    return sorted(found)


def reference_framework() -> Path:
    """The oldest shared framework found: what mcs compiles test hosts against (it cannot read .NET 7+)."""
    frameworks = _frameworks()
    if not frameworks:
        raise RuntimeError("no .NET runtime: set DOTNET_ROOT or install the `coreclr` extra (make install)")
    return frameworks[0][1]


def dotnet_root() -> Path:
    """The .NET installation with the newest runtime found: the one the tests run on."""
    frameworks = _frameworks(runnable=True)
    if not frameworks:
        raise RuntimeError("no runnable .NET: set DOTNET_ROOT or install the `coreclr` extra (make install)")
    return frameworks[-1][1].parents[2]


def runtime_version() -> str:
    """The version of the runtime the tests run on, e.g. "8.0.4"."""
    dotnet_root()
    return _frameworks(runnable=True)[-1][1].name


def dotnet_executable() -> Path:
    return dotnet_root() / "dotnet"


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """os.environ plus TF's quiet logging, the framework C# tests compile their hosts against
    (TFNET_TEST_REFERENCE_FRAMEWORK, read by ShutdownTests), and the ICU version for .NET Core 3.1, which looks only
    for the versions it knew (without ICU, invariant globalization)."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "TFNET_TEST_REFERENCE_FRAMEWORK": str(reference_framework()),
           **(extra or {})}
    if "CLR_ICU_VERSION_OVERRIDE" not in env and "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT" not in env:
        icu = ctypes.util.find_library("icuuc")  # e.g. "libicuuc.so.72"
        version = re.search(r"\.so\.(\d+)", icu or "")
        if version:
            env["CLR_ICU_VERSION_OVERRIDE"] = version.group(1)
        else:
            env["DOTNET_SYSTEM_GLOBALIZATION_INVARIANT"] = "1"
    return env


def mcs_references() -> list[str]:
    """mcs arguments compiling against :func:`reference_framework` instead of Mono's libraries."""
    return ["-nostdlib", "-noconfig", "-nowarn:1702", *[f"-r:{f}" for f in sorted(reference_framework().glob("*.dll"))]]


@dataclass
class RunnerResult:
    passed: int
    failed: int
    failures: list[str] = field(default_factory=list)
    output: str = ""
    #: every case that ran, by full name: None when it passed, else its first message line
    cases: dict[str, str | None] = field(default_factory=dict)


_CASE = re.compile(r"^(PASS|FAIL|SKIP) (.+) \(\d+ ms\)$")


def run_tests(assembly: Path, timeout: float = 900, fixtures: list[str] | None = None) -> RunnerResult:
    """Run every NUnit test in ``assembly`` (only those of ``fixtures``, full names, when given) with the CoreCLR
    runner beside it; failures are 'Name: first line'."""
    selection = ["--fixtures", ",".join(fixtures)] if fixtures else []
    proc = subprocess.run([str(dotnet_executable()), str(assembly.parent / RUNNER), str(assembly), *selection],
                          capture_output=True, text=True, timeout=timeout, env=environment(), cwd=assembly.parent)
    output = proc.stdout + proc.stderr
    summary = _SUMMARY.search(proc.stdout)
    if summary is None:
        return RunnerResult(0, 1, [f"the runner printed no summary (exit {proc.returncode})"], output)
    lines = proc.stdout.splitlines()
    failures = []
    cases: dict[str, str | None] = {}
    for i, line in enumerate(lines):
        detail = lines[i + 1].strip() if i + 1 < len(lines) and lines[i + 1].startswith("    ") else ""
        if line.startswith("FAIL "):
            failures.append(f"{line[5:]}: {detail}")
        case = _CASE.match(line)
        if case:
            cases[case.group(2)] = None if case.group(1) == "PASS" else (detail or case.group(1).lower())
    if proc.returncode != 0 and not failures:
        failures.append(f"runner exit {proc.returncode}")
    return RunnerResult(int(summary.group(1)), int(summary.group(2)), failures, output, cases)
