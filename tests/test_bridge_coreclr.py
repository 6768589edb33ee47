"""The C# suites on .NET (CoreCLR): the same sources as the Mono build, compiled by dotnet/build.sh into
dotnet/bin/coreclr and run by the project's runner (NUnit 2.6's console does not run on .NET)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DOTNET_BIN
from coreclr import run_tests

#: Somewhat under each suite's size (75 and about 280 cases); far fewer means whole fixtures did not load.
SUITES = {"TfNetTrain.Tests": 60, "TfNetTrain.Reference.Tests": 250}


@pytest.fixture
def coreclr_bin() -> Path:
    folder = DOTNET_BIN / "coreclr"
    if not (folder / "TfNetTrain.dll").exists():
        raise RuntimeError(f"CoreCLR build missing in {folder}: run `make build` (needs the `coreclr` extra)")
    return folder


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_csharp_suite_passes_on_coreclr(coreclr_bin: Path, suite: str) -> None:
    result = run_tests(coreclr_bin / f"{suite}.dll")
    failures = "\n".join(result.failures)
    assert not result.failures, f"C# failures on CoreCLR:\n{failures}\n\n{result.output[-3000:]}"
    assert result.failed == 0
    assert result.passed >= SUITES[suite], f"only {result.passed} C# tests ran:\n{result.output[-3000:]}"
