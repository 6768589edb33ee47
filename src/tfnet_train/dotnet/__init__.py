"""Where the C# bridge's assemblies are: one folder per .NET runtime inside this package.

``dotnet/build.sh`` (``make build``) compiles the same C# sources twice and copies the libraries here, so the
wheel carries both builds; a C# program references the folder of its runtime together with pythonnet's
``Python.Runtime.dll`` (see :func:`python_runtime_dll`).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

#: Runtime name -> what runs that build.
RUNTIMES = {
    "mono": "Mono 6.8+ (the .NET Framework profile: mscorlib + netstandard facade)",
    "coreclr": ".NET (CoreCLR): .NET Core 3.1 and .NET 5 or later",
}

#: The assemblies each folder holds.
LIBRARIES = ("TfNetTrain.dll", "TfNetTrain.Reference.dll")

_HERE = Path(__file__).resolve().parent


def build_dir(runtime: str) -> Path:
    """The folder holding the ``runtime`` build (``mono`` or ``coreclr``), whether or not it was built."""
    if runtime not in RUNTIMES:
        raise ValueError(f"runtime must be one of {', '.join(RUNTIMES)}, got {runtime!r}")
    return _HERE / runtime


def is_built(runtime: str) -> bool:
    """True when the ``runtime`` folder holds ``TfNetTrain.dll``."""
    return (build_dir(runtime) / LIBRARIES[0]).is_file()


def python_runtime_dll() -> Path | None:
    """pythonnet's ``Python.Runtime.dll`` (netstandard2.0, for both runtimes), found without loading pythonnet."""
    spec = importlib.util.find_spec("pythonnet")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(spec.submodule_search_locations[0]) / "runtime" / "Python.Runtime.dll"
    return path if path.is_file() else None
