"""Load a test module from the installed ``keras`` wheel with the engine's classes in place of Keras's.

The module's own source runs unchanged, in a fresh module object whose imports go through ``_SuiteImport``:
an import that reaches a Keras ``Model``/``Sequential``/``Functional`` or one of the optimizers the engine
provides (``from keras.src.models import Sequential``, ``import keras`` then ``keras.Model``,
``from keras.src import models`` then ``models.Sequential``) yields the engine's class instead. Keras's own
modules are never modified, so Keras internals keep their classes (the engine's classes subclass them, so
``isinstance`` checks inside Keras still hold).

``TFNET_KERAS_SUITE=keras`` turns substitution off: the same modules run against Keras itself.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import os
import sys
import types
import unittest
from typing import Any

import pytest

MODE_VARIABLE = "TFNET_KERAS_SUITE"


def mode() -> str:
    """'engine' (default: the engine's classes substituted) or 'keras' (Keras's own classes)."""
    value = os.environ.get(MODE_VARIABLE, "engine").strip().lower() or "engine"
    if value not in ("engine", "keras"):
        raise ValueError(f"{MODE_VARIABLE} must be 'engine' or 'keras', got {value!r}")
    return value


# Names a test module keeps as Keras's, with the reason: module -> {global name: reason}.
KEPT_AS_KERAS: dict[str, dict[str, str]] = {
    "keras.src.trainers.trainer_test": {
        "RMSprop": "used only to check the optimizer Keras's own Trainer (TrainingTestingLayer) builds from 'rmsprop'",
    },
}


def substitutions() -> list[tuple[Any, Any]]:
    """(Keras object, the engine's replacement) pairs in 'engine' mode; none in 'keras' mode."""
    if mode() == "keras":
        return []
    import keras
    from keras.src.backend.tensorflow.trainer import TensorFlowTrainer

    import tfnet_train
    from tfnet_train import optimizers

    pairs = [
        (TensorFlowTrainer, tfnet_train.Trainer),  # trainer_test.py mixes it into layers (ExampleModel, ...)
        (keras.Model, tfnet_train.Model),
        (keras.Sequential, tfnet_train.Sequential),
        (keras.src.models.Functional, tfnet_train.Functional),
        (keras.optimizers.SGD, optimizers.SGD),
        (keras.optimizers.Adam, optimizers.Adam),
        (keras.optimizers.AdamW, optimizers.AdamW),
        (keras.optimizers.RMSprop, optimizers.RMSprop),
    ]
    return pairs


def _conftest_shim() -> types.ModuleType:
    """What the wheel's test files import from Keras's repository conftest (not shipped in the wheel)."""
    from keras.src.backend import backend

    shim = types.ModuleType("conftest")

    def skip_if_backend(given_backend: str, reason: str) -> pytest.MarkDecorator:
        return pytest.mark.skipif(backend() == given_backend, reason=reason)

    shim.skip_if_backend = skip_if_backend  # type: ignore[attr-defined]
    return shim


class _MissingModule(types.ModuleType):
    """Stands for an optional package that is not installed (``import jax`` at the top of trainer_test.py,
    used only by JAX-backend tests): importing succeeds, using it raises ModuleNotFoundError."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise ModuleNotFoundError(f"No module named {self.__name__!r} (needed for {self.__name__}.{name})")


class _ModuleView:
    """A Keras module seen from a test module: attributes that are substituted Keras objects come back as the
    engine's, submodules that lead to one come back as views; everything else is the module's own attribute.
    Writes go to the module itself (so ``mock.patch.object`` works)."""

    def __init__(self, module: types.ModuleType, suite_import: _SuiteImport) -> None:
        object.__setattr__(self, "_module", module)
        object.__setattr__(self, "_suite_import", suite_import)

    def __getattr__(self, name: str) -> Any:
        return self._suite_import.view(getattr(self._module, name))

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._module, name, value)

    def __delattr__(self, name: str) -> None:
        delattr(self._module, name)

    def __dir__(self) -> list[str]:
        return dir(self._module)

    def __repr__(self) -> str:
        return f"<view of {self._module!r}>"


class _SuiteImport:
    """The ``__import__`` a loaded test module uses."""

    def __init__(self, replacements: dict[int, Any]) -> None:
        self.replacements = replacements
        self.views: dict[str, _ModuleView] = {}
        self.routes = self._modules_leading_to_replacements()

    def _modules_leading_to_replacements(self) -> set[str]:
        """Names of loaded Keras modules that hold a replaced object, and their parent packages."""
        routes: set[str] = set()
        if not self.replacements:
            return routes
        for name, module in list(sys.modules.items()):
            if not (name == "keras" or name.startswith("keras.")) or not isinstance(module, types.ModuleType):
                continue
            if any(id(value) in self.replacements for value in list(vars(module).values())):
                parts = name.split(".")
                routes.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        return routes

    def view(self, value: Any) -> Any:
        replacement = self.replacements.get(id(value))
        if replacement is not None:
            return replacement
        if isinstance(value, types.ModuleType) and value.__name__ in self.routes:
            found = self.views.get(value.__name__)
            if found is None:
                found = self.views[value.__name__] = _ModuleView(value, self)
            return found
        return value

    def __call__(self, name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level == 0 and name == "conftest":
            return _conftest_shim()
        if level == 0 and name.split(".")[0] == "jax" and importlib.util.find_spec("jax") is None:
            return _MissingModule(name if fromlist else "jax")
        module = builtins.__import__(name, globals, locals, fromlist, level)
        return self.view(module)


def load(module_name: str) -> types.ModuleType:
    """Execute the wheel's test module ``module_name`` (e.g. 'keras.src.callbacks.early_stopping_test') in a new
    module object named after it with a '_suite' suffix, imports routed through ``_SuiteImport``."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.origin is None or spec.loader is None:
        raise ModuleNotFoundError(f"The installed keras wheel has no test module {module_name!r}")
    module = types.ModuleType(f"{module_name}_suite")
    module.__file__ = spec.origin
    module.__package__ = module_name.rpartition(".")[0]
    suite_builtins = dict(vars(builtins))
    pairs = substitutions()
    suite_builtins["__import__"] = _SuiteImport({id(keras_obj): engine_obj for keras_obj, engine_obj in pairs})
    module.__builtins__ = suite_builtins  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module  # classes defined in it (and pickling) find their module
    with open(spec.origin, encoding="utf-8") as source:
        code = compile(source.read(), spec.origin, "exec")
    exec(code, vars(module))
    originals = {id(engine_obj): keras_obj for keras_obj, engine_obj in pairs}
    for name in KEPT_AS_KERAS.get(module_name, {}):
        value = getattr(module, name)
        setattr(module, name, originals.get(id(value), value))
    return module


def export(module_name: str, namespace: dict[str, Any]) -> None:
    """Put the test classes and test functions of the loaded module into ``namespace`` (an entry file's globals),
    where pytest collects them."""
    module = load(module_name)
    for name, value in vars(module).items():
        defined_here = getattr(value, "__module__", None) == module.__name__
        if not defined_here:
            continue
        if isinstance(value, type) and issubclass(value, unittest.TestCase):
            namespace[name] = value
        elif isinstance(value, types.FunctionType) and name.startswith("test"):
            namespace[name] = value
