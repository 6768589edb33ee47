"""The CoreCLR test runner (dotnet/tests/TfNetTrain.TestRunner) on a small NUnit assembly written here: it runs
what NUnit 2.6 runs, in NUnit's order, reports failures in its output and exit code, and fails a case that
carries an NUnit attribute it does not implement."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import DOTNET_BIN
from coreclr import RUNNER, dotnet_executable, environment, mcs_references

SAMPLE = r"""
using System;
using System.Collections.Generic;
using System.Threading;
using NUnit.Framework;

namespace Sample
{
    public static class Log { public static List<string> Lines = new List<string>(); }

    [SetUpFixture]
    public class Everything
    {
        [SetUp] public void Start() { Log.Lines.Add("assembly-setup"); }
        [TearDown] public void Stop() { Console.WriteLine("order: " + string.Join(",", Log.Lines)); }
    }

    [TestFixture]
    public class Cases
    {
        private int _instanceCount;
        private static readonly object[] Pairs = { new object[] { 1, 2 }, new object[] { 3, 4 } };

        [TestFixtureSetUp] public void Once() { Log.Lines.Add("fixture-setup"); }
        [SetUp] public void Before() { _instanceCount++; Log.Lines.Add("setup"); }
        [TearDown] public void After() { Log.Lines.Add("teardown"); }
        [TestFixtureTearDown] public void Last() { Log.Lines.Add("fixture-teardown"); }

        [Test] public void APasses() { Assert.AreEqual(2, 1 + 1); }
        [Test] public void BFails() { Assert.AreEqual(3, 1 + 1, "one plus one"); }
        [Test] public void CThrows() { throw new InvalidOperationException("boom"); }
        [TestCase(1, 2.0)] [TestCase(2, 4.0)] public void Doubles(int x, double y) { Assert.AreEqual(y, 2 * x); }
        [TestCaseSource("Pairs")] public void Sources(int a, int b) { Assert.AreEqual(a + 1, b); }
        [Test] public void Values([Values(1, 2)] int a, [Values("x", "y")] string b) { Assert.IsNotNull(b); }
        [Test] public void SharesTheInstance() { Assert.Greater(_instanceCount, 1); }
        [Test, Timeout(200)] public void TimesOut() { Thread.Sleep(5000); }
        [Test] public void Ignored() { Assert.Ignore("not here"); }
        [Test, Ignore("later")] public void IgnoredByAttribute() { throw new Exception("ran"); }
        [Test, ExpectedException(typeof(ArgumentException))] public void Expects() { throw new ArgumentException(); }
    }
}
"""


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    coreclr = DOTNET_BIN / "coreclr"
    if not (coreclr / RUNNER).exists():
        raise RuntimeError(f"{coreclr / RUNNER} missing: run `make build` (needs the `coreclr` extra)")
    for name in (RUNNER, "TfNetTrain.TestRunner.runtimeconfig.json", "nunit.framework.dll"):
        shutil.copy(coreclr / name, tmp_path / name)
    (tmp_path / "Sample.cs").write_text(SAMPLE)
    proc = subprocess.run(["mcs", "-nologo", "-target:library", f"-out:{tmp_path / 'Sample.dll'}", *mcs_references(),
                           f"-r:{tmp_path / 'nunit.framework.dll'}", str(tmp_path / "Sample.cs")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return tmp_path / "Sample.dll"


def test_runner_runs_every_case_in_nunit_order_and_fails_on_failures(sample: Path) -> None:
    proc = subprocess.run([str(dotnet_executable()), str(sample.parent / RUNNER), str(sample)], capture_output=True,
                          text=True, timeout=120, env=environment(), cwd=sample.parent)
    out = proc.stdout
    assert proc.returncode == 1, out + proc.stderr
    lines = out.splitlines()
    status = {line.split(" ")[1]: line.split(" ")[0] for line in lines if line[:5] in ("PASS ", "FAIL ", "SKIP ")}
    prefix = "Sample.Cases."
    assert status == {
        prefix + "APasses": "PASS", prefix + "BFails": "FAIL", prefix + "CThrows": "FAIL",
        prefix + "Doubles(1,2d)": "PASS", prefix + "Doubles(2,4d)": "PASS",
        prefix + "Sources(1,2)": "PASS", prefix + "Sources(3,4)": "PASS",
        prefix + 'Values(1,"x")': "PASS", prefix + 'Values(1,"y")': "PASS",
        prefix + 'Values(2,"x")': "PASS", prefix + 'Values(2,"y")': "PASS",
        prefix + "SharesTheInstance": "PASS", prefix + "TimesOut": "FAIL", prefix + "Ignored": "SKIP",
        prefix + "IgnoredByAttribute": "SKIP", prefix + "Expects": "FAIL",
    }
    assert "10 passed, 4 failed, 2 skipped" in lines
    assert any("one plus one" in line for line in lines), out
    assert any("System.InvalidOperationException: boom" in line for line in lines), out
    assert any("Timeout value of 200ms" in line for line in lines), out
    assert any("unsupported NUnit attribute(s): [ExpectedException]" in line for line in lines), out
    order = next(line for line in lines if line.startswith("order: ")).split(": ")[1].split(",")
    assert order[:4] == ["assembly-setup", "fixture-setup", "setup", "teardown"]
    assert order[-1] == "fixture-teardown" and order.count("setup") == order.count("teardown") == 14


def test_runner_with_a_filter_runs_only_matching_cases_and_exits_zero(sample: Path) -> None:
    proc = subprocess.run([str(dotnet_executable()), str(sample.parent / RUNNER), str(sample), "--where", "Doubles"],
                          capture_output=True, text=True, timeout=120, env=environment(), cwd=sample.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "2 passed, 0 failed"


def test_runner_that_ran_nothing_fails(sample: Path) -> None:
    proc = subprocess.run([str(dotnet_executable()), str(sample.parent / RUNNER), str(sample), "--where", "NoSuchTest"],
                          capture_output=True, text=True, timeout=120, env=environment(), cwd=sample.parent)
    assert proc.returncode == 1 and proc.stdout.splitlines()[-1] == "0 passed, 0 failed"
