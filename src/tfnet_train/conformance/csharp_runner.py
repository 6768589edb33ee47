"""Runs a case with the pure C# reference trainer (TfNetTrain.Reference.dll) in this process, on Mono via pythonnet.

``ReferenceRunner.RunToNpz(caseJsonPath, outNpzPath)`` writes one ``.npz`` whose keys are
``step{i}/<flat trace key>``. The assembly is looked up in ``$TFNET_TRAIN_DOTNET_BIN``, else in
``<repository>/dotnet/bin`` (built by ``dotnet/build.sh``).
"""

from __future__ import annotations

import os
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from tfnet_train.conformance.case import Case, save
from tfnet_train.conformance.errors import ImplementationUnavailable, NotApplicable
from tfnet_train.conformance.trace_files import read_step_npz

ASSEMBLY = "TfNetTrain.Reference.dll"
ENV_VAR = "TFNET_TRAIN_DOTNET_BIN"
_runner: Any = None


def dotnet_bin() -> Path:
    """The folder holding the C# build output."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[3] / "dotnet" / "bin"


def assembly_path() -> Path:
    """The reference assembly's path, or ImplementationUnavailable naming where it was looked for."""
    path = dotnet_bin() / ASSEMBLY
    if not path.is_file():
        raise ImplementationUnavailable(
            f"C# reference assembly not found: expected {path} (set {ENV_VAR} or run "
            f"`PYTHON=.venv/bin/python bash dotnet/build.sh`)")
    return path


def reference_runner() -> Any:
    """``TfNetTrain.Reference.ReferenceRunner`` loaded in-process (the Mono runtime starts once, unless Python runs
    inside a .NET host already)."""
    global _runner
    if _runner is not None:
        return _runner
    path = assembly_path()
    try:
        import pythonnet

        # A .NET host that embeds Python (TfNetTrain.Conformance.exe) has its runtime and `clr` already.
        if "clr" not in sys.modules and pythonnet.get_runtime_info() is None:
            with warnings.catch_warnings():  # clr_loader warns about Mono < 6.12; it runs fine here
                warnings.simplefilter("ignore", UserWarning)
                pythonnet.load("mono")
        import clr
    except Exception as err:  # noqa: BLE001 - any runtime start failure means "unavailable"
        raise ImplementationUnavailable(f"cannot start the Mono runtime through pythonnet: {err}") from err
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.append(folder)
    clr.AddReference(str(path))
    from TfNetTrain.Reference import ReferenceRunner  # type: ignore[import-not-found]

    _runner = ReferenceRunner
    return _runner


def run_csharp(case: Case) -> list[dict[str, np.ndarray]]:
    """The C# reference's traces for a case (written to a temporary folder first). A Keras-config case goes in its
    Dense form; one without a Dense form is NotApplicable, naming the layer, before the C# side is started."""
    from tfnet_train.conformance.keras_model import dense_only

    case = dense_only(case, "the C# reference")
    runner = reference_runner()
    with tempfile.TemporaryDirectory(prefix="tfnet-train-case-") as tmp:
        json_path = save(case, None, tmp)
        out = Path(tmp) / "trace.npz"
        try:
            runner.RunToNpz(str(json_path), str(out))
        except Exception as err:
            if type(err).__name__ == "UnsupportedModelException":  # the reference's own refusal, should one reach it
                raise NotApplicable(str(getattr(err, "Message", err))) from None
            raise
        return read_step_npz(out)
