"""The C# side of the bridge: runs the NUnit suite dotnet/tests/TfNetTrain.Tests (C# driving the Python engine)
and fails listing every C# failure."""

from __future__ import annotations

from pathlib import Path

from nunit import run_nunit

#: The suite holds about 65 cases; far fewer means whole fixtures did not load.
MIN_CASES = 60


def test_csharp_bridge_suite_passes(dotnet_bin: Path) -> None:
    assembly = dotnet_bin / "TfNetTrain.Tests.dll"
    assert assembly.exists(), f"{assembly} missing: build with dotnet/build.sh"
    # Preemptive thread suspension: streamed C# batches (TensorFlowNetStreamTests) can deadlock a .NET collection
    # under Mono's default hybrid mode (docs/bridge.md, from_generator).
    result = run_nunit(assembly, env={"TF_CPP_MIN_LOG_LEVEL": "3", "MONO_THREADS_SUSPEND": "preemptive"})
    assert not result.failures, "C# failures:\n" + "\n".join(result.failures) + "\n\n" + result.output[-3000:]
    assert result.total >= MIN_CASES, f"only {result.total} C# tests ran:\n{result.output[-3000:]}"
