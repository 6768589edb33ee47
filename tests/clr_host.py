"""Loads the C# assemblies into this Python process through pythonnet on Mono (once per process)."""

from __future__ import annotations

from pathlib import Path

_loaded: set[str] = set()


def load_assembly(dll: Path) -> None:
    """Start the Mono runtime if needed, then add a reference to ``dll`` so `import <Namespace>` works."""
    import pythonnet

    if pythonnet.get_runtime_info() is None:
        pythonnet.load("mono")
    import clr  # noqa: F401  (available once a runtime is loaded)

    key = str(Path(dll).resolve())
    if key not in _loaded:
        import sys

        folder = str(Path(dll).resolve().parent)
        if folder not in sys.path:
            sys.path.append(folder)
        clr.AddReference(key)
        _loaded.add(key)
