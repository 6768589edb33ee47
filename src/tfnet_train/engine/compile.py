"""Model.compile (Model.Compile.cs): Keras 3's compile, with the arguments resolved by the semantics profile."""

from __future__ import annotations

from typing import Any

import keras

from tfnet_train import keras_internals, optimizers
from tfnet_train.engine.losses_container import tfnet_loss
from tfnet_train.engine.metrics_container import tfnet_metrics
from tfnet_train.semantics import get_profile


class CompileMixin:
    """compile(): everything Keras 3's compile takes, plus ``semantics``."""

    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        loss_weights: Any = None,
        metrics: Any = None,
        weighted_metrics: Any = None,
        run_eagerly: bool = False,
        steps_per_execution: int = 1,
        jit_compile: bool | str = "auto",
        auto_scale_loss: bool = True,
        *,
        semantics: str = "keras",
    ) -> None:
        """Configure training. ``semantics`` is ``"keras"`` (Keras 3 numbers) or ``"tfnet"`` (TF.NET's)."""
        profile = get_profile(semantics)
        _check_loss(loss)
        _check_loss_weights(loss_weights)
        if isinstance(steps_per_execution, bool) or not isinstance(steps_per_execution, int) or steps_per_execution < 1:
            raise ValueError(f"steps_per_execution must be an integer >= 1, got {steps_per_execution!r}")
        if not isinstance(run_eagerly, bool):
            raise TypeError(f"run_eagerly must be a bool, got {type(run_eagerly).__name__}")
        if jit_compile not in (True, False, "auto"):
            raise ValueError(f"jit_compile must be True, False or 'auto', got {jit_compile!r}")
        with self.distribute_strategy.scope():  # a named optimizer's variables are mirrored under a strategy
            resolved = optimizers.get(optimizer, semantics=profile.name)
        optimizers.set_semantics(resolved, profile.name)
        # Keras resolves names at the first step; a wrong name is found here, before anything changes
        if profile.tfnet_losses:  # TF.NET's string rules and weighted loss; Keras's own objects otherwise
            loss = tfnet_loss(loss)
        else:
            _check_names(loss, "loss", keras.losses.get, "unknown name")
        if profile.tfnet_metrics:  # TF.NET's metric strings and names
            metrics = tfnet_metrics(metrics)
        else:
            for name, value in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
                _check_names(value, name, _get_metric, "unknown metric name")
        keras_optimizer = resolved if isinstance(resolved, keras.optimizers.Optimizer) else None
        with self.distribute_strategy.scope():
            keras.Model.compile(self, optimizer=keras_optimizer, loss=loss, loss_weights=loss_weights,
                                metrics=metrics, weighted_metrics=weighted_metrics, run_eagerly=run_eagerly,
                                steps_per_execution=steps_per_execution, jit_compile=jit_compile,
                                auto_scale_loss=auto_scale_loss)
        if keras_optimizer is None:
            self.optimizer = resolved
        state = self._engine
        state.profile = profile
        state.reset_functions()
        keras_internals.set_compile_option(self, "semantics", profile.name)

    def compile_from_config(self, config: dict[str, Any]) -> None:
        """Compile from a saved compile configuration (Keras skips models whose compile is overridden)."""
        config = keras.saving.deserialize_keras_object(config)
        self.compile(**config)
        if self.optimizer is not None and self.built:
            self.optimizer.build(self.trainable_variables)

    @property
    def semantics(self) -> str:
        """The semantics profile given to compile: ``"keras"`` or ``"tfnet"``."""
        return self._engine.profile.name


_METRIC_SHORTCUTS = ("accuracy", "acc", "crossentropy", "ce")  # resolved by Keras from the shapes at build


def _get_metric(name: str) -> Any:
    return name if name in _METRIC_SHORTCUTS else keras.metrics.get(name)


def _check_names(value: Any, argument: str, resolve: Any, what: str) -> None:
    """ValueError naming ``argument`` for any string in the (nested) value that Keras does not know."""
    for leaf in keras.tree.flatten(value) if value is not None else ():
        if isinstance(leaf, str):
            try:
                resolve(leaf)
            except (ValueError, TypeError):
                raise ValueError(f"{argument}: {what} {leaf!r} (Keras 3 names are case-sensitive)") from None


def _check_loss(loss: Any) -> None:
    """TypeError for a loss that is no name, Loss or function (Keras accepts it and fails at the first step)."""
    for leaf in keras.tree.flatten(loss) if loss is not None else ():
        if leaf is not None and not isinstance(leaf, str) and not callable(leaf):
            raise TypeError(
                "loss must be a loss name, a keras.losses.Loss or a function (or a list/dict of them, one per "
                f"output), got {type(leaf).__name__} {leaf!r}")


def _check_loss_weights(loss_weights: Any) -> None:
    """TypeError for metrics given where Keras 3 takes loss_weights (TF.NET's compile has metrics third)."""
    if loss_weights is None:
        return
    leaves = keras.tree.flatten(loss_weights)
    if any(not isinstance(w, int | float) or isinstance(w, bool) for w in leaves):
        raise TypeError(
            f"loss_weights must be numbers (a float, or a list/dict of floats per output), got {loss_weights!r}; "
            "Keras 3's compile takes loss_weights third: pass metrics by name, compile(..., metrics=[...])"
        )
