"""The flat trace's key format has one owner (tfnet_train.engine.trace); every implementation's trace follows it."""

import numpy as np

from tfnet_train.conformance import implementations
from tfnet_train.conformance.case import load
from tfnet_train.conformance.runner import case_paths
from tfnet_train.engine.trace import STAGES, StepTrace, flatten, key, stage_of


def _trace() -> StepTrace:
    a = np.ones(2, np.float32)
    return StepTrace(step=0, inputs={"x": [a], "y": [a]}, y_pred=[a], loss=0.5, gradients=[a, None],
                     aggregated_gradients=[a, None], clipped_gradients=[a, None], weights=[a, a],
                     optimizer_state={"iterations": 1, "learning_rate": 0.1, "slots": {"m": [a, a]}},
                     metrics={"loss": 0.5}, replicas=[{"rows": 2, "inputs": {"x": [a]}, "y_pred": [a], "loss": 0.25,
                                                       "gradients": [a, None]}])


def test_a_trace_flattens_to_the_documented_keys():
    assert set(_trace().flat()) == {
        "inputs/x/0", "inputs/y/0", "y_pred/0", "loss", "gradients/0", "aggregated_gradients/0",
        "clipped_gradients/0", "weights/0", "weights/1", "optimizer_state/iterations",
        "optimizer_state/learning_rate", "optimizer_state/m/0", "optimizer_state/m/1", "metrics/loss",
        "replicas/0/loss", "replicas/0/inputs/x/0", "replicas/0/y_pred/0", "replicas/0/gradients/0"}


def test_keys_name_their_stage():
    for stage in STAGES:
        assert stage_of(key(stage, "part", 3)) == stage
    assert key("optimizer_state", "m", 0) == "optimizer_state/m/0"
    assert stage_of("loss") == "loss"


def test_stages_left_out_have_no_keys():
    assert flatten(loss=1.0) == {"loss": np.asarray(1.0)}
    assert flatten(gradients=[None, np.zeros(1)]).keys() == {"gradients/1"}


def test_every_implementation_writes_the_engines_keys():
    case = next(c for c in map(load, case_paths("default")) if c.semantics == "keras" and not c.has_keras_model)
    traces = {name: implementations.run(name, case)[0] for name in ("engine", "keras", "numpy")}
    engine = set(traces["engine"])
    for name in ("keras", "numpy"):
        own = {k for k in traces[name] if stage_of(k) != "metrics"}  # metric names differ (Keras's, TF.NET's)
        assert own and own <= engine, (name, sorted(own - engine))
        assert {stage_of(k) for k in own} >= {"inputs", "y_pred", "loss", "gradients", "weights", "optimizer_state"}
