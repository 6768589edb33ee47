"""Model.compile (Model.Compile.cs)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from tfnet_train import optimizers
from tfnet_train.engine.losses_container import LossesContainer
from tfnet_train.engine.metrics_container import MetricsContainer
from tfnet_train.semantics import check_semantics


class CompileMixin:
    """compile(): resolves optimizer, loss and metrics for the chosen semantics profile."""

    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        metrics: Any = None,
        *,
        semantics: str = "keras",
        run_eagerly: bool = False,
        jit_compile: bool = False,
        steps_per_execution: int = 1,
    ) -> None:
        """Configure training. ``semantics`` is ``"keras"`` (Keras 3 numbers) or ``"tfnet"`` (TF.NET's)."""
        state = self._engine
        semantics = check_semantics(semantics)
        if isinstance(steps_per_execution, bool) or not isinstance(steps_per_execution, int) or steps_per_execution < 1:
            raise ValueError(f"steps_per_execution must be an integer >= 1, got {steps_per_execution!r}")
        if not isinstance(run_eagerly, bool):
            raise TypeError(f"run_eagerly must be a bool, got {type(run_eagerly).__name__}")
        if jit_compile not in (True, False, "auto"):
            raise ValueError(f"jit_compile must be True, False or 'auto', got {jit_compile!r}")
        strategy = self._engine.strategy
        if strategy is not None and strategy.num_replicas_in_sync > 1 and steps_per_execution > 1:
            raise ValueError(f"steps_per_execution={steps_per_execution}: only 1 is supported under a distribution "
                             f"strategy with {strategy.num_replicas_in_sync} replicas")
        with self.distribute_strategy.scope():
            resolved_optimizer = optimizers.get(optimizer, semantics=semantics)
            optimizers.set_semantics(resolved_optimizer, semantics)
            state.compiled_loss = LossesContainer(loss, semantics)
            state.compiled_metrics = MetricsContainer(metrics, semantics)
        state.optimizer = resolved_optimizer
        state.semantics = semantics
        state.run_eagerly = run_eagerly
        state.jit_compile = jit_compile is True
        state.steps_per_execution = steps_per_execution
        state.is_compiled = True
        state.reset_functions()
        self.compiled = True

    @property
    def optimizer(self) -> Any:
        return self._engine.optimizer

    @optimizer.setter
    def optimizer(self, value: Any) -> None:  # keras.Model assigns None during construction
        if value is not None:
            self._engine.optimizer = value

    @property
    def compiled_loss(self) -> LossesContainer | None:
        return self._engine.compiled_loss

    @property
    def compiled_metrics(self) -> MetricsContainer | None:
        return self._engine.compiled_metrics

    @property
    def semantics(self) -> str:
        return self._engine.semantics

    @property
    def run_eagerly(self) -> bool:
        return self._engine.run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value: bool) -> None:
        self._engine.run_eagerly = bool(value)
        self._engine.reset_functions()

    @property
    def distribute_strategy(self) -> tf.distribute.Strategy:
        return self._engine.strategy or tf.distribute.get_strategy()

    def _assert_compile_was_called(self, method: str) -> None:
        if not self._engine.is_compiled:
            raise ValueError(f"{method}() needs a compiled model: call model.compile(optimizer, loss, metrics) first")
