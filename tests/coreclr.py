"""Runs C# on .NET (CoreCLR): the `dotnet` host, the environment it needs here, and the project's test runner
(dotnet/bin/coreclr/TfNetTrain.TestRunner.dll, which prints one line per test and "N passed, N failed")."""

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


def dotnet_root() -> Path | None:
    """DOTNET_ROOT when it holds a shared framework, else the runtime of the `dotnetcore2` wheel (as dotnet/build.sh
    chooses)."""
    root = os.environ.get("DOTNET_ROOT")
    if root and (Path(root) / "shared" / "Microsoft.NETCore.App").is_dir():
        return Path(root)
    spec = importlib.util.find_spec("dotnetcore2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(spec.submodule_search_locations[0]) / "bin"


def dotnet_executable() -> Path:
    root = dotnet_root()
    if root is None or not (root / "dotnet").is_file():
        raise RuntimeError("no .NET runtime: set DOTNET_ROOT or install the `coreclr` extra (make install)")
    return root / "dotnet"


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """os.environ plus what .NET Core 3.1 needs on a newer distribution: it probes ICU only up to the versions it
    knew, so name the installed one (or run without ICU where there is none)."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", **(extra or {})}
    if "CLR_ICU_VERSION_OVERRIDE" not in env and "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT" not in env:
        icu = ctypes.util.find_library("icuuc")  # e.g. "libicuuc.so.72"
        version = re.search(r"\.so\.(\d+)", icu or "")
        if version:
            env["CLR_ICU_VERSION_OVERRIDE"] = version.group(1)
        else:
            env["DOTNET_SYSTEM_GLOBALIZATION_INVARIANT"] = "1"
    return env


@dataclass
class RunnerResult:
    passed: int
    failed: int
    failures: list[str] = field(default_factory=list)
    output: str = ""


def run_tests(assembly: Path, timeout: float = 900) -> RunnerResult:
    """Run every NUnit test in ``assembly`` with the CoreCLR runner beside it; failures are 'Name: first line'."""
    proc = subprocess.run([str(dotnet_executable()), str(assembly.parent / RUNNER), str(assembly)],
                          capture_output=True, text=True, timeout=timeout, env=environment(), cwd=assembly.parent)
    output = proc.stdout + proc.stderr
    summary = _SUMMARY.search(proc.stdout)
    if summary is None:
        return RunnerResult(0, 1, [f"the runner printed no summary (exit {proc.returncode})"], output)
    lines = proc.stdout.splitlines()
    failures = []
    for i, line in enumerate(lines):
        if line.startswith("FAIL "):
            detail = lines[i + 1].strip() if i + 1 < len(lines) and lines[i + 1].startswith("    ") else ""
            failures.append(f"{line[5:]}: {detail}")
    if proc.returncode != 0 and not failures:
        failures.append(f"runner exit {proc.returncode}")
    return RunnerResult(int(summary.group(1)), int(summary.group(2)), failures, output)
