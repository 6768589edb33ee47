"""Runs a case with Keras 3 itself (semantics "keras" only): a keras.Sequential from the spec, compiled with the
case's loss, metrics and optimizer, trained one ``train_step`` at a time.

Before each step a GradientTape pass on the same batch records y_pred, the loss and the gradients; the
engine's clip stage (``tfnet_train.optimizers.clip_gradients``, Keras's own clipping) gives the clipped
gradients and ``optimizer_state`` the slots under the trace's names. Keras then trains the step with its own
``train_step`` (loss tracker, ``optimizer.apply``, metrics), and the trace takes the weights, optimizer
variables and logs from it. Keras applies no expand_1d and exposes no aggregation stage, so ``inputs/y``,
``inputs/sample_weight`` and ``aggregated_gradients`` are absent from its traces.

The tape pass runs the model in training mode, which moves state: Dropout's seed generator advances and
BatchNormalization's moving statistics update. Every non-trainable variable is put back after it, so Keras's own
step sees the state the engine's single forward pass sees (the same dropout mask, one moving-statistics update).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfnet_train.conformance.case import Case
from tfnet_train.conformance.errors import NotApplicable
from tfnet_train.conformance.keras_model import build_keras_model, set_case_weights
from tfnet_train.engine.trace import flatten


def keras_loss(case: Case) -> Any:
    """The loss to compile with: a Keras loss object, or the case's string (or None) when ``loss.as_string``."""
    import keras

    if case.loss.as_string:
        return case.loss.name

    classes = {
        "mse": lambda: keras.losses.MeanSquaredError(),
        "mae": lambda: keras.losses.MeanAbsoluteError(),
        "binary_crossentropy": lambda: keras.losses.BinaryCrossentropy(from_logits=case.loss.from_logits),
        "categorical_crossentropy":
            lambda: keras.losses.CategoricalCrossentropy(from_logits=case.loss.from_logits),
        "sparse_categorical_crossentropy":
            lambda: keras.losses.SparseCategoricalCrossentropy(from_logits=case.loss.from_logits),
    }
    return classes[case.loss.name]()


def keras_optimizer(case: Case) -> Any:
    """The optimizer to compile with: a Keras optimizer, or the case's string when ``optimizer.as_string``."""
    import keras

    if case.optimizer.as_string:
        return case.optimizer.name
    p = dict(case.optimizer.params)
    classes = {"sgd": keras.optimizers.SGD, "adam": keras.optimizers.Adam, "adamw": keras.optimizers.AdamW,
               "rmsprop": keras.optimizers.RMSprop}
    return classes[case.optimizer.name](**p)


def keras_layers(case: Case) -> list[Any]:
    import keras

    layers: list[Any] = [keras.Input((case.model.input_dim,))]
    for spec in case.model.layers:
        regularizer = None if spec.kernel_l2 is None else keras.regularizers.L2(spec.kernel_l2)
        layers.append(keras.layers.Dense(spec.units, activation=spec.activation, use_bias=spec.use_bias,
                                         kernel_regularizer=regularizer))
    return layers


def run_keras(case: Case) -> list[dict[str, np.ndarray]]:
    """Keras 3's traces for a semantics "keras" case."""
    if case.semantics != "keras":
        raise NotApplicable(f"Keras 3 runs only semantics 'keras' cases; case {case.name!r} uses "
                            f"{case.semantics!r}")
    import keras
    import tensorflow as tf

    from tfnet_train import optimizers

    if case.has_keras_model:
        model = build_keras_model(case.model)
        set_case_weights(model, case.arrays.weights, case.name)
    else:
        model = keras.Sequential(keras_layers(case))
        model.set_weights(case.arrays.weights)
    model.compile(optimizer=keras_optimizer(case), loss=keras_loss(case), metrics=list(case.metrics) or None,
                  run_eagerly=True)
    optimizer = model.optimizer
    model.reset_metrics()
    traces = []
    for step in range(case.steps):
        x, y, sw = case.batch(step)
        state = [np.array(v.value.numpy()) for v in model.non_trainable_variables]  # seeds, moving statistics
        with tf.GradientTape() as tape:
            y_pred = model(x, training=True)
            loss = model.compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sw, training=True)
        gradients = tape.gradient(loss, model.trainable_weights)
        for variable, value in zip(model.non_trainable_variables, state, strict=True):
            variable.assign(value)
        clipped = optimizers.clip_gradients(optimizer, gradients)
        data = (x, y) if sw is None else (x, y, sw)
        logs = model.train_step(data)
        state = optimizers.optimizer_state(optimizer, model.trainable_weights)
        slots = {slot: [np.array(a) for a in arrays] for slot, arrays in state["slots"].items()}
        traces.append(flatten(
            inputs={"x": [x]}, y_pred=[y_pred], loss=float(loss), gradients=gradients, clipped_gradients=clipped,
            weights=model.get_weights(), metrics={name: float(np.mean(value)) for name, value in logs.items()},
            optimizer_state={"iterations": int(state["iterations"]), "learning_rate": float(state["learning_rate"]),
                             "slots": slots}))
    return traces
