"""Keras 3's own optimizer tests, from the installed wheel, run against the engine's classes.

Each ``keras/src/optimizers/<name>_test.py`` imports its class by name (``from keras.src.optimizers.sgd import
SGD``); while one of its tests runs here, that name in the test module is ours (``tfnet_train.optimizers.SGD``).
The test classes are subclassed, not copied, so every test of the installed wheel runs. With
``TFNET_KERAS_SUITE=keras`` in the environment the same tests run against Keras's own classes instead.
"""

from __future__ import annotations

import importlib
import os
import unittest
from collections.abc import Iterator
from typing import Any

import pytest

from tfnet_train import optimizers

# test module -> the class name it imports and tests
SUITES = {
    "keras.src.optimizers.sgd_test": "SGD",
    "keras.src.optimizers.adam_test": "Adam",
    "keras.src.optimizers.adamw_test": "AdamW",
    "keras.src.optimizers.rmsprop_test": "RMSprop",
}
AGAINST_KERAS = os.environ.get("TFNET_KERAS_SUITE") == "keras"


def _suite_classes() -> dict[str, type]:
    classes = {}
    for module_name, class_name in SUITES.items():
        module = importlib.import_module(module_name)
        for name, obj in vars(module).items():
            if isinstance(obj, type) and issubclass(obj, unittest.TestCase) and obj.__module__ == module_name:
                attributes = {"keras_module": module, "class_name": class_name, "__module__": __name__}
                classes[f"Test{class_name}_{name}"] = type(f"Test{class_name}_{name}", (obj,), attributes)
    return classes


globals().update(_suite_classes())


@pytest.fixture(autouse=True)
def _ours_in_the_keras_test_module(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    cls = request.cls
    if cls is None or not hasattr(cls, "keras_module") or AGAINST_KERAS:
        yield
        return
    ours = getattr(optimizers, cls.class_name)
    assert issubclass(ours, getattr(cls.keras_module, cls.class_name))
    monkeypatch.setattr(cls.keras_module, cls.class_name, ours)
    built: list[str] = []
    init = optimizers.OptimizerV2.__init__

    def counting(self: Any, *args: Any, **kwargs: Any) -> None:
        built.append(type(self).__name__)
        init(self, *args, **kwargs)

    monkeypatch.setattr(optimizers.OptimizerV2, "__init__", counting)
    yield
    assert cls.class_name in built, f"the Keras test built no tfnet_train.optimizers.{cls.class_name}"


def test_every_suite_has_tests() -> None:
    collected = {cls.class_name for cls in _suite_classes().values()}
    assert collected == set(SUITES.values())
