"""semantics="tfnet" vs "keras": optimizers (TF.NET Optimizers/*.cs, Engine/Model.Train.cs, Model.Compile.cs).

Each test trains the same network under both profiles: the tfnet numbers against the NumPy reference of
TensorFlow.NET's formulas, the keras numbers against Keras 3 itself.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import pytest
from test_semantics_reference import (
    LinearNet,
    RMSpropRef,
    SGDRef,
    assert_history_matches,
    assert_weights_match,
    data,
    differs,
    tfnet_fit,
    trio,
)

from tfnet_train import optimizers

EPOCHS, BATCH = 3, 4


def fit_both(trio_: Any, keras_optimizer: Any, ours: Any, x: np.ndarray, y: np.ndarray, **compile_kwargs: Any) -> None:
    """Keras 3 and the keras profile with equivalent optimizers: equal history and weights."""
    fit = dict(batch_size=BATCH, epochs=EPOCHS, verbose=0, shuffle=False)
    trio_.reference.compile(optimizer=keras_optimizer, loss="mse", run_eagerly=True, **compile_kwargs)
    trio_.keras_profile.compile(optimizer=ours, loss="mse", semantics="keras", run_eagerly=True, **compile_kwargs)
    expected = trio_.reference.fit(x, y, **fit).history
    assert_history_matches(trio_.keras_profile.fit(x, y, **fit).history, expected)
    assert_weights_match(trio_.keras_profile.get_weights(), trio_.reference.get_weights())


def fit_tfnet(trio_: Any, optimizer: Any, reference_optimizer: Any, x: np.ndarray, y: np.ndarray) -> None:
    """The tfnet profile against the NumPy reference with ``reference_optimizer``."""
    model = trio_.tfnet_profile
    model.compile(optimizer=optimizer, loss="mse", semantics="tfnet", run_eagerly=True)
    history = model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, verbose=0, shuffle=False).history
    net = LinearNet.of(trio_.initial)
    records = tfnet_fit(net, reference_optimizer, x, y, BATCH, EPOCHS)
    assert_history_matches(history, {"loss": [r.loss for r in records]})
    assert_weights_match(model.get_weights(), net.weights())


CLIPPING = {"clipnorm": 0.01, "clipvalue": 0.001, "global_clipnorm": 0.01}


@pytest.mark.parametrize("argument", sorted(CLIPPING))
def test_clipping_arguments_have_no_effect(argument: str) -> None:
    """aggregate_gradients and clip_gradients return their input: the clip argument changes nothing."""
    x, y = data(seed=3)
    t = trio()
    clip = {argument: CLIPPING[argument]}
    fit_tfnet(t, optimizers.SGD(0.1, **clip), SGDRef(0.1), x, y)
    fit_both(t, keras.optimizers.SGD(0.1, **clip), optimizers.SGD(0.1, **clip), x, y)
    assert differs(t.tfnet_profile.get_weights(), t.keras_profile.get_weights())


def test_sgd_nesterov_is_never_applied() -> None:
    """SGD(momentum, nesterov=True) under tfnet is plain momentum: TF.NET's constructor never stores nesterov."""
    x, y = data(seed=4)
    t = trio()
    fit_tfnet(t, optimizers.SGD(0.1, momentum=0.9, nesterov=True), SGDRef(0.1, momentum=0.9), x, y)
    fit_both(t, keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
             optimizers.SGD(0.1, momentum=0.9, nesterov=True), x, y)
    assert differs(t.tfnet_profile.get_weights(), t.keras_profile.get_weights())


def test_rmsprop_ignores_momentum() -> None:
    """RMSprop(momentum=0.9) under tfnet updates as if momentum were 0 (TF.NET never sets its momentum flag)."""
    x, y = data(seed=5)
    t = trio()
    fit_tfnet(t, optimizers.RMSprop(0.01, momentum=0.9), RMSpropRef(0.01), x, y)
    fit_both(t, keras.optimizers.RMSprop(0.01, momentum=0.9), optimizers.RMSprop(0.01, momentum=0.9), x, y)
    assert differs(t.tfnet_profile.get_weights(), t.keras_profile.get_weights())


def test_rmsprop_epsilon_outside_the_square_root() -> None:
    """TF.NET divides by sqrt(rms) + eps; Keras 3 by sqrt(rms + eps). A large epsilon makes it visible."""
    x, y = data(seed=6)
    t = trio()
    fit_tfnet(t, optimizers.RMSprop(0.01, epsilon=0.5), RMSpropRef(0.01, epsilon=0.5), x, y)
    fit_both(t, keras.optimizers.RMSprop(0.01, epsilon=0.5), optimizers.RMSprop(0.01, epsilon=0.5), x, y)
    assert differs(t.tfnet_profile.get_weights(), t.keras_profile.get_weights())


@pytest.mark.parametrize(
    ("name", "config", "keras_optimizer"),
    [
        ("rmsprop_centered", {"centered": True}, keras.optimizers.RMSprop),
        ("adam_amsgrad", {"amsgrad": True}, keras.optimizers.Adam),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_unsupported_optimizer_options_are_errors(name: str, config: dict, keras_optimizer: type) -> None:
    """TF.NET throws NotImplementedException at the first update; tfnet raises NotImplementedError there and
    leaves the weights untouched. Under keras the option works as in Keras 3."""
    x, y = data(seed=7)
    t = trio()
    ours_cls = optimizers.RMSprop if name.startswith("rmsprop") else optimizers.Adam
    model = t.tfnet_profile
    model.compile(optimizer=ours_cls(0.01, **config), loss="mse", semantics="tfnet", run_eagerly=True)
    with pytest.raises(NotImplementedError, match=next(iter(config))):
        model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0, shuffle=False)
    assert_weights_match(model.get_weights(), t.initial)
    fit_both(t, keras_optimizer(0.01, **config), ours_cls(0.01, **config), x, y)
    assert differs(t.keras_profile.get_weights(), t.initial)


@pytest.mark.parametrize("name", ["sgd", "adam", "no_such_optimizer"])
def test_any_optimizer_string_gives_rmsprop(name: str) -> None:
    """compile(optimizer=<any string>) under tfnet is RMSprop(0.001, rho=0.9, epsilon=1e-7), as TF.NET's string
    compile; under keras the name picks the Keras 3 optimizer with its defaults (unknown names are errors)."""
    x, y = data(seed=8)
    t = trio()
    fit_tfnet(t, name, RMSpropRef(0.001, rho=0.9, epsilon=1e-7), x, y)
    optimizer = t.tfnet_profile.optimizer
    assert isinstance(optimizer, optimizers.RMSprop)
    assert (float(optimizer.learning_rate), optimizer.rho, optimizer.epsilon) == pytest.approx((0.001, 0.9, 1e-7))
    if name == "no_such_optimizer":
        with pytest.raises(ValueError, match="no_such_optimizer"):
            t.keras_profile.compile(optimizer=name, loss="mse", semantics="keras")
        return
    fit_both(t, name, name, x, y)
    assert type(t.keras_profile.optimizer).__name__.lower() == name
