"""Packages that only some features need, each brought by an extra of ``tfnet-train``: what a feature imports when
its package is missing is an ImportError that names the extra, not a bare ModuleNotFoundError."""

from __future__ import annotations

import importlib
from types import ModuleType

#: module -> (distribution on PyPI, the extra that brings it)
EXTRAS = {
    "sklearn": ("scikit-learn", "demo"),
    "matplotlib": ("matplotlib", "demo"),
    "tensorboard": ("tensorboard", "tensorboard"),
}


def require(module: str, feature: str) -> ModuleType:
    """``module`` imported, or ImportError saying that ``feature`` needs it and which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        distribution, extra = EXTRAS[module.split(".")[0]]
        raise ImportError(f"{feature} needs {distribution}, which a plain `pip install tfnet-train` does not bring: "
                          f"pip install 'tfnet-train[{extra}]'") from error


def available(module: str) -> bool:
    """Whether ``module`` imports."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True
