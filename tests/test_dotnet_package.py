"""The C# libraries in the Python package: `dotnet/build.sh` copies both builds into tfnet_train/dotnet, the wheel
from `python -m build` carries them, `tfnet-train dotnet --path` prints their folders, and a C# program compiled
against an installed wheel's folder (beside pythonnet's Python.Runtime.dll) trains on Mono and on .NET."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import DOTNET_BIN, ROOT
from coreclr import dotnet_executable, environment, mcs_references, runtime_version

from tfnet_train import dotnet
from tfnet_train.cli import main

#: Where each runtime's build lands under dotnet/bin.
BIN = {"mono": DOTNET_BIN, "coreclr": DOTNET_BIN / "coreclr"}

HOST = """
using System;
using TfNetTrain;

public static class Host
{
    public static int Main()
    {
        using (PythonRuntime.Start())
        {
            var model = Keras.Sequential(Layers.Input(4), Layers.Dense(3, kernelInitializer: "ones"));
            model.Compile("sgd", "mse");
            var x = new NDArray(new float[] { 1, 1, 1, 1 }, 1, 4);
            float loss = model.TrainOnBatch(x, new NDArray(new float[3], 1, 3))["loss"];
            Console.WriteLine("version=" + Environment.Version);
            Console.WriteLine("loss=" + loss.ToString(System.Globalization.CultureInfo.InvariantCulture));
            Console.WriteLine("runtime=" + (Type.GetType("Mono.Runtime") != null ? "mono" : "coreclr"));
        }
        return 0;
    }
}
"""


def test_unknown_runtime_is_refused() -> None:
    with pytest.raises(ValueError, match=r"runtime must be one of mono, coreclr, got 'net48'"):
        dotnet.build_dir("net48")


@pytest.mark.parametrize("runtime", ["mono", "coreclr"])
def test_package_folder_holds_that_runtimes_build(runtime: str) -> None:
    for name in dotnet.LIBRARIES:
        packaged = dotnet.build_dir(runtime) / name
        assert packaged.read_bytes() == (BIN[runtime] / name).read_bytes(), f"{packaged} is not the {runtime} build"
    assert (BIN["mono"] / "TfNetTrain.dll").read_bytes() != (BIN["coreclr"] / "TfNetTrain.dll").read_bytes()


def test_cli_prints_the_build_folders(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dotnet", "--path"]) == 0
    assert capsys.readouterr().out.splitlines() == [str(dotnet.build_dir("mono")), str(dotnet.build_dir("coreclr"))]
    assert main(["dotnet", "--path", "--runtime", "coreclr"]) == 0
    assert capsys.readouterr().out.splitlines() == [str(dotnet.build_dir("coreclr"))]
    assert main(["dotnet"]) == 0
    summary = capsys.readouterr().out
    assert "TfNetTrain.dll" in summary and str(dotnet.python_runtime_dll()) in summary


def test_cli_names_a_missing_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(dotnet, "_HERE", tmp_path)
    assert main(["dotnet", "--path", "--runtime", "mono"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and f"no mono build in {tmp_path / 'mono'}" in captured.err


@pytest.fixture(scope="module")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`python -m build` (sdist, then the wheel from it), installed with pip into a folder of its own."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheel = next(out.glob("tfnet_train-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for runtime in dotnet.RUNTIMES:
        for name in dotnet.LIBRARIES:
            assert f"tfnet_train/dotnet/{runtime}/{name}" in names, f"{name} ({runtime}) missing from {wheel.name}"
    site = out / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                           str(wheel)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return site


def _compile_host(runtime: str, folder: Path, work: Path) -> list[str]:
    """Compile HOST against ``folder``'s TfNetTrain.dll and pythonnet's Python.Runtime.dll, copied beside it as a
    C# project's build would; return the command that runs it."""
    for dll in (folder / "TfNetTrain.dll", dotnet.python_runtime_dll()):
        shutil.copy(dll, work / dll.name)
    (work / "host.cs").write_text(HOST)
    refs = [f"-r:{work / 'TfNetTrain.dll'}", f"-r:{work / 'Python.Runtime.dll'}"]
    if runtime == "mono":
        exe = work / "host.exe"
        refs += ["-r:System.dll", "-r:System.Core.dll", "-r:Facades/netstandard.dll"]
        command = ["mono", str(exe)]
    else:
        exe = work / "host.dll"
        refs = [*mcs_references(), *refs]
        (work / "host.runtimeconfig.json").write_text(
            '{"runtimeOptions": {"framework": {"name": "Microsoft.NETCore.App", "version": "3.1.0"}, '
            '"rollForward": "LatestMajor"}}')
        command = [str(dotnet_executable()), str(exe)]
    proc = subprocess.run(["mcs", "-nologo", "-langversion:7.2", "-target:exe", f"-out:{exe}", *refs,
                           str(work / "host.cs")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return command


@pytest.mark.parametrize("runtime", ["mono", "coreclr"])
def test_a_csharp_host_trains_with_the_installed_wheels_build(runtime: str, installed_wheel: Path,
                                                              tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(installed_wheel)}
    proc = subprocess.run([sys.executable, "-m", "tfnet_train.cli", "dotnet", "--path", "--runtime", runtime],
                          capture_output=True, text=True, timeout=120, env=environment(env))
    assert proc.returncode == 0, proc.stderr
    folder = Path(proc.stdout.strip())
    assert folder == installed_wheel / "tfnet_train" / "dotnet" / runtime
    command = _compile_host(runtime, folder, tmp_path)
    # The host finds the venv through TFNET_TRAIN_VENV and imports the installed wheel's tfnet_train.
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=environment({**env, "TFNET_TRAIN_VENV": sys.prefix}))
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    # An all-ones kernel maps ones(4) to 4 in each of 3 outputs; against zeros the mean squared error is 4² = 16.
    assert proc.stdout.splitlines()[-2:] == ["loss=16", f"runtime={runtime}"]
    if runtime == "coreclr":  # compiled against the oldest framework found, run on the newest runtime
        assert f"version={runtime_version()}" in proc.stdout.splitlines()
