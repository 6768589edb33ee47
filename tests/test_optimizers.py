"""Optimizers: Keras 3 parity (keras profile), TensorFlow.NET formulas (tfnet profile, NumPy reference),
graph/eager agreement, learning-rate changes, distribution, the engine's stage functions for any Keras
optimizer, saving, and argument errors."""

from __future__ import annotations

import inspect
import warnings

import keras
import numpy as np
import pytest
import tensorflow as tf

from tfnet_train import optimizers
from tfnet_train.optimizers import SGD, Adam, AdamW, RMSprop
from tfnet_train.tolerances import assert_close

SHAPES = [(3, 4), (4,), (2, 3, 2)]
STEPS = 5
LR = 0.01

OPTIMIZER_CASES = {
    "sgd": ("SGD", {}),
    "sgd_momentum": ("SGD", {"momentum": 0.9}),
    "sgd_nesterov": ("SGD", {"momentum": 0.9, "nesterov": True}),
    "adam": ("Adam", {}),
    "adam_amsgrad": ("Adam", {"amsgrad": True}),
    "adamw": ("AdamW", {"weight_decay": 0.1}),
    "rmsprop": ("RMSprop", {}),
    "rmsprop_momentum": ("RMSprop", {"momentum": 0.5}),
    "rmsprop_centered": ("RMSprop", {"centered": True}),
}
CLIP_CASES = {
    "no_clip": {},
    "clipnorm": {"clipnorm": 0.5},
    "clipvalue": {"clipvalue": 0.05},
    "global_clipnorm": {"global_clipnorm": 0.5},
}
# our slot name -> attribute of the Keras 3 optimizer holding the matching per-variable list
KERAS_SLOT_ATTRIBUTES = {
    "SGD": {"momentum": "momentums"},
    "Adam": {"m": "_momentums", "v": "_velocities", "vhat": "_velocity_hats"},
    "AdamW": {"m": "_momentums", "v": "_velocities", "vhat": "_velocity_hats"},
    "RMSprop": {"rms": "_velocities", "momentum": "_momentums", "mg": "_average_gradients"},
}


def _problem(seed: int = 0) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    rng = np.random.default_rng(seed)
    initial = [rng.normal(size=s).astype(np.float32) for s in SHAPES]
    grads = [[rng.normal(size=s).astype(np.float32) for s in SHAPES] for _ in range(STEPS)]
    return initial, grads


def _variables(initial: list[np.ndarray]) -> list[keras.Variable]:
    return [keras.Variable(a.copy(), name=f"w{i}") for i, a in enumerate(initial)]


def _train(optimizer, initial, grads, **apply_kwargs) -> list:
    variables = _variables(initial)
    for step_grads in grads:
        optimizer.apply_gradients(
            [(tf.constant(g), v) for g, v in zip(step_grads, variables, strict=True)], **apply_kwargs
        )
    return variables


def _assert_all_close(actual, expected, what: str) -> None:
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        assert_close(np.asarray(a), np.asarray(e), what=f"{what}[{i}]")


def _compare_with_keras(class_name: str, kwargs: dict, ours_lr, keras_lr) -> None:
    initial, grads = _problem()
    ours = getattr(optimizers, class_name)(learning_rate=ours_lr, **kwargs)
    reference = getattr(keras.optimizers, class_name)(learning_rate=keras_lr, **kwargs)
    ours_vars = _train(ours, initial, grads)
    keras_vars = _train(reference, initial, grads)
    _assert_all_close([v.numpy() for v in ours_vars], [v.numpy() for v in keras_vars], "variables")
    assert int(ours.iterations.numpy()) == int(reference.iterations.numpy()) == STEPS
    for slot, attribute in KERAS_SLOT_ATTRIBUTES[class_name].items():
        if slot not in ours.get_slot_names():
            continue
        expected = [s.numpy() for s in getattr(reference, attribute)]
        actual = [ours.get_slot(v, slot).numpy() for v in ours_vars]
        _assert_all_close(actual, expected, f"slot {slot}")


# ------------------------------------------------------------------------------------------------ keras profile
@pytest.mark.parametrize("clip", CLIP_CASES.values(), ids=CLIP_CASES.keys())
@pytest.mark.parametrize("case", OPTIMIZER_CASES.values(), ids=OPTIMIZER_CASES.keys())
def test_keras_profile_matches_keras3(case, clip):
    class_name, kwargs = case
    _compare_with_keras(class_name, {**kwargs, **clip}, LR, LR)


@pytest.mark.parametrize("case", OPTIMIZER_CASES.values(), ids=OPTIMIZER_CASES.keys())
def test_keras_profile_matches_keras3_with_schedule(case):
    class_name, kwargs = case
    ours = optimizers.ExponentialDecay(0.05, decay_steps=2, decay_rate=0.5)
    theirs = keras.optimizers.schedules.ExponentialDecay(0.05, decay_steps=2, decay_rate=0.5)
    _compare_with_keras(class_name, kwargs, ours, theirs)


def test_keras_schedule_object_is_accepted():
    theirs = keras.optimizers.schedules.PiecewiseConstantDecay([1, 3], [0.1, 0.05, 0.01])
    _compare_with_keras("Adam", {}, theirs, theirs)


def test_adamw_exclusion_by_name_matches_keras3():
    initial, grads = _problem()
    ours, reference = AdamW(learning_rate=0.05, weight_decay=0.5), keras.optimizers.AdamW(0.05, 0.5)
    ours.exclude_from_weight_decay(var_names=["w1", "w2"])
    reference.exclude_from_weight_decay(var_names=["w1", "w2"])
    ours_vars, keras_vars = _train(ours, initial, grads), _train(reference, initial, grads)
    _assert_all_close([v.numpy() for v in ours_vars], [v.numpy() for v in keras_vars], "variables")
    included = _train(AdamW(learning_rate=0.05, weight_decay=0.5), initial, grads)
    assert not np.allclose(included[1].numpy(), ours_vars[1].numpy())  # the exclusion changed something


def test_adamw_exclusion_by_variable():
    initial, grads = _problem()
    variables = _variables(initial)
    optimizer = AdamW(learning_rate=0.05, weight_decay=0.5)
    optimizer.exclude_from_weight_decay(var_list=[variables[0]])
    for step_grads in grads:
        optimizer.apply_gradients([(tf.constant(g), v) for g, v in zip(step_grads, variables, strict=True)])
    plain = _train(Adam(learning_rate=0.05), initial, grads)
    decayed = _train(AdamW(learning_rate=0.05, weight_decay=0.5), initial, grads)
    assert_close(variables[0].numpy(), plain[0].numpy(), what="excluded variable follows plain Adam")
    assert_close(variables[1].numpy(), decayed[1].numpy(), what="other variables decay")


@pytest.mark.parametrize("pair", [("clipnorm", "clipvalue"), ("clipnorm", "global_clipnorm"),
                                  ("clipvalue", "global_clipnorm")], ids="+".join)
@pytest.mark.parametrize("class_name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_two_clip_arguments_are_refused_as_by_keras(class_name, pair):
    kwargs = dict.fromkeys(pair, 1.0)
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm`"):
        getattr(keras.optimizers, class_name)(**kwargs)
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm`"):
        getattr(optimizers, class_name)(**kwargs)


@pytest.mark.parametrize("clip", CLIP_CASES.values(), ids=CLIP_CASES.keys())
def test_clip_stage_is_keras_clipping(clip):
    grads = [tf.constant([3.0, -4.0, 0.5]), None, tf.constant([[0.1, 2.0]])]
    ours = SGD(**clip)._clip_gradients(grads)
    theirs = keras.optimizers.SGD(**clip)._clip_gradients(grads)
    assert ours[1] is None and theirs[1] is None
    _assert_all_close([ours[0], ours[2]], [theirs[0], theirs[2]], "clipped")
    if clip:
        assert not np.allclose(ours[0].numpy(), grads[0].numpy())


def test_none_gradient_is_skipped_with_warning_under_keras():
    w0, w1 = tf.Variable([1.0, 2.0], name="kept"), tf.Variable([5.0], name="orphan")
    optimizer = SGD(learning_rate=0.5)
    with pytest.warns(UserWarning, match="orphan"):
        optimizer.apply_gradients([(tf.constant([1.0, 1.0]), w0), (None, w1)])
    assert_close(w0.numpy(), [0.5, 1.5], what="updated")
    assert_close(w1.numpy(), [5.0], what="skipped")
    with pytest.raises(ValueError, match="No gradients provided"):
        optimizer.apply_gradients([(None, w0), (None, w1)])


def test_constraint_applied_under_keras_only():
    for semantics, expected in (("keras", [0.0, 1.5]), ("tfnet", [-0.5, 1.5])):
        w = keras.Variable(np.array([0.5, 2.0], np.float32))
        w.constraint = keras.constraints.NonNeg()
        optimizer = SGD(learning_rate=1.0)
        optimizer._set_semantics(semantics)
        optimizer.apply_gradients([(tf.constant([1.0, 0.5]), w)])
        assert_close(w.numpy(), expected, what=semantics)


# ------------------------------------------------------------------------------------------------ tfnet profile
def _numpy_tfnet(class_name: str, kwargs: dict, initial, grads, lr_per_step):
    """TensorFlow.NET 0.15's update formulas, written out in NumPy (float64)."""
    w = [a.astype(np.float64) for a in initial]
    state = {k: [np.zeros_like(a) for a in w] for k in ("a", "m", "v")}
    lr0 = lr_per_step[0]
    for t, (step_grads, lr) in enumerate(zip(grads, lr_per_step, strict=True), start=1):
        for i, g in enumerate(step_grads):
            g = g.astype(np.float64)
            if class_name == "SGD":
                if kwargs.get("momentum", 0.0) > 0:
                    state["a"][i] = kwargs["momentum"] * state["a"][i] - lr * g
                    w[i] = w[i] + state["a"][i]
                else:
                    w[i] = w[i] - lr * g
            elif class_name in ("Adam", "AdamW"):
                if class_name == "AdamW":
                    w[i] = w[i] + (-lr0 * w[i] * kwargs.get("weight_decay", 0.004))
                b1, b2, eps = 0.9, 0.999, 1e-7
                lr_t = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
                state["m"][i] = b1 * state["m"][i] + (1 - b1) * g
                state["v"][i] = b2 * state["v"][i] + (1 - b2) * g * g
                w[i] = w[i] - lr_t * state["m"][i] / (np.sqrt(state["v"][i]) + eps)
            elif class_name == "RMSprop":
                rho, eps = 0.9, 1e-7
                state["v"][i] = rho * state["v"][i] + (1 - rho) * g * g
                w[i] = w[i] - lr * g / (np.sqrt(state["v"][i]) + eps)
    return w


TFNET_CASES = {
    "sgd": ("SGD", {}),
    "sgd_momentum": ("SGD", {"momentum": 0.9}),
    "sgd_nesterov_ignored": ("SGD", {"momentum": 0.9, "nesterov": True}),
    "adam": ("Adam", {}),
    "adamw": ("AdamW", {"weight_decay": 0.1}),
    "rmsprop": ("RMSprop", {}),
    "rmsprop_momentum_ignored": ("RMSprop", {"momentum": 0.9}),
}


@pytest.mark.parametrize("clip", CLIP_CASES.values(), ids=CLIP_CASES.keys())
@pytest.mark.parametrize("case", TFNET_CASES.values(), ids=TFNET_CASES.keys())
def test_tfnet_profile_matches_numpy_formulas(case, clip):
    class_name, kwargs = case
    initial, grads = _problem(seed=1)
    optimizer = getattr(optimizers, class_name)(learning_rate=LR, **kwargs, **clip)
    optimizer._set_semantics("tfnet")
    variables = _train(optimizer, initial, grads)
    expected = _numpy_tfnet(class_name, kwargs, initial, grads, [LR] * STEPS)
    _assert_all_close([v.numpy() for v in variables], expected, "variables")
    assert int(optimizer.iterations.numpy()) == STEPS


def test_tfnet_rmsprop_has_no_momentum_slot_and_puts_eps_outside_sqrt():
    optimizer = RMSprop(learning_rate=0.1, momentum=0.9, epsilon=0.5)
    optimizer._set_semantics("tfnet")
    w = tf.Variable([1.0])
    optimizer.apply_gradients([(tf.constant([2.0]), w)])
    assert optimizer.get_slot_names() == ["rms"]
    rms = 0.1 * 4.0
    assert_close(w.numpy(), [1.0 - 0.1 * 2.0 / (np.sqrt(rms) + 0.5)], what="eps outside sqrt")
    keras_profile = RMSprop(learning_rate=0.1, epsilon=0.5)
    v = tf.Variable([1.0])
    keras_profile.apply_gradients([(tf.constant([2.0]), v)])
    assert_close(v.numpy(), [1.0 - 0.1 * 2.0 / np.sqrt(rms + 0.5)], what="eps inside sqrt")


def test_tfnet_adamw_decays_with_constructor_learning_rate():
    initial, grads = _problem(seed=2)
    optimizer = AdamW(learning_rate=0.01, weight_decay=0.2)
    optimizer._set_semantics("tfnet")
    variables = _variables(initial)
    lrs = [0.01, 0.01, 0.05, 0.05, 0.05]
    for step_grads, lr in zip(grads, lrs, strict=True):
        optimizer.learning_rate = lr
        optimizer.apply_gradients([(tf.constant(g), v) for g, v in zip(step_grads, variables, strict=True)])
    expected = _numpy_tfnet("AdamW", {"weight_decay": 0.2}, initial, grads, lrs)
    _assert_all_close([v.numpy() for v in variables], expected, "variables")


@pytest.mark.parametrize(
    "optimizer", [RMSprop(centered=True), Adam(amsgrad=True), AdamW(amsgrad=True)], ids=["centered", "adam", "adamw"]
)
def test_tfnet_unsupported_configurations_raise(optimizer):
    optimizer._set_semantics("tfnet")
    w = tf.Variable([1.0])
    with pytest.raises(NotImplementedError, match="semantics='tfnet'"):
        optimizer.apply_gradients([(tf.constant([1.0]), w)])
    assert_close(w.numpy(), [1.0], what="nothing applied")
    assert int(optimizer.iterations.numpy()) == 0


def test_tfnet_none_gradient_names_the_variable():
    optimizer = SGD()
    optimizer._set_semantics("tfnet")
    w0, w1 = tf.Variable([1.0], name="first"), keras.Variable([1.0], name="second")
    with pytest.raises(ValueError, match="second.*None"):
        optimizer.apply_gradients([(tf.constant([1.0]), w0), (None, w1)])


def test_tfnet_rejects_schedules():
    schedule = optimizers.ExponentialDecay(0.1, 10, 0.9)
    with pytest.raises(ValueError, match="learning_rate.*float.*ExponentialDecay"):
        SGD(learning_rate=schedule)._set_semantics("tfnet")
    optimizer = SGD()
    optimizer._set_semantics("tfnet")
    with pytest.raises(ValueError, match="learning_rate.*tfnet"):
        optimizer.learning_rate = keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)


def test_tfnet_aggregation_and_clipping_are_identity():
    optimizer = SGD(clipnorm=0.1)
    optimizer._set_semantics("tfnet")
    grads = [tf.constant([3.0, 4.0]), None]
    assert optimizer._clip_gradients(grads)[0] is grads[0]
    assert optimizer._aggregate_gradients(zip(grads, [tf.Variable([0.0, 0.0]), tf.Variable(0.0)]))[0] is grads[0]


# ------------------------------------------------------------------------------------------------ execution modes
@pytest.mark.parametrize("case", OPTIMIZER_CASES.values(), ids=OPTIMIZER_CASES.keys())
def test_tf_function_equals_eager(case):
    class_name, kwargs = case
    initial, grads = _problem(seed=3)
    eager_vars = _train(getattr(optimizers, class_name)(learning_rate=LR, clipnorm=1.0, **kwargs), initial, grads)
    optimizer = getattr(optimizers, class_name)(learning_rate=LR, clipnorm=1.0, **kwargs)
    variables = _variables(initial)

    @tf.function
    def step(step_grads):
        optimizer.apply_gradients(list(zip(step_grads, variables, strict=True)))

    for step_grads in grads:
        step([tf.constant(g) for g in step_grads])
    _assert_all_close([v.numpy() for v in variables], [v.numpy() for v in eager_vars], "graph vs eager")
    assert int(optimizer.iterations.numpy()) == STEPS


def test_learning_rate_change_takes_effect_without_retrace():
    optimizer = SGD(learning_rate=0.1)
    w = tf.Variable([1.0])
    traces = []

    @tf.function
    def step():
        traces.append(1)
        optimizer.apply_gradients([(tf.constant([1.0]), w)])

    step()
    assert_close(w.numpy(), [0.9], what="lr 0.1")
    optimizer.learning_rate = 0.05
    assert float(optimizer.learning_rate) == pytest.approx(0.05)
    step()
    assert_close(w.numpy(), [0.85], what="lr 0.05")
    assert len(traces) == 1


def test_schedule_is_evaluated_at_iterations():
    schedule = optimizers.PiecewiseConstantDecay([1], [0.5, 0.1])
    optimizer = SGD(learning_rate=schedule)
    assert float(optimizer.learning_rate) == pytest.approx(0.5)
    w = tf.Variable([0.0])
    for _ in range(3):
        optimizer.apply_gradients([(tf.constant([1.0]), w)])
    assert_close(w.numpy(), [-(0.5 + 0.5 + 0.1)], what="steps 0,1 at 0.5 then 0.1")
    assert_close(optimizer.get_state([w])["learning_rate"].numpy(), 0.1, what="next")
    assert float(optimizer.learning_rate) == pytest.approx(0.1)


def test_without_aggregation_flag_gradients_are_not_clipped():
    w_raw, w_clipped = tf.Variable([0.0]), tf.Variable([0.0])
    first, second = SGD(learning_rate=1.0, clipvalue=0.01), SGD(learning_rate=1.0, clipvalue=0.01)
    first.apply_gradients([(tf.constant([1.0]), w_raw)], False)  # positional, as the engine's mirror calls it
    second.apply_gradients([(tf.constant([1.0]), w_clipped)], experimental_aggregate_gradients=True)
    assert_close(w_raw.numpy(), [-1.0], what="as given")
    assert_close(w_clipped.numpy(), [-0.01], what="clipped")
    assert first.clipvalue == 0.01 and "_clip_gradients" not in vars(first)  # restored after the call


def test_without_aggregation_flag_loss_scale_factor_is_not_divided_again():
    w = tf.Variable([0.0])
    optimizer = SGD(learning_rate=1.0, loss_scale_factor=4.0)
    optimizer.apply_gradients([(tf.constant([1.0]), w)], False)
    assert_close(w.numpy(), [-1.0], what="as given")
    optimizer.apply_gradients([(tf.constant([1.0]), w)])
    assert_close(w.numpy(), [-1.25], what="divided by the factor")
    assert optimizer.loss_scale_factor == 4.0


def test_build_is_idempotent_and_get_state_works_eagerly_and_in_graph():
    w = [tf.Variable(np.ones((2, 2), np.float32)), tf.Variable([1.0])]
    optimizer = Adam(learning_rate=0.1, amsgrad=True)
    optimizers.build(optimizer, w)
    optimizers.build(optimizer, w)
    assert len(optimizer.variables) == 2 + 3 * len(w)
    assert optimizer.get_slot_names() == ["m", "v", "vhat"]
    optimizer.apply_gradients([(tf.ones((2, 2)), w[0]), (tf.constant([2.0]), w[1])])
    eager = optimizer.get_state(w)
    graph = tf.function(lambda: optimizer.get_state(w))()
    for state in (eager, graph):
        assert state["iterations"].dtype == tf.int64 and int(state["iterations"]) == 1
        assert state["learning_rate"].dtype == tf.float32
        assert_close(state["learning_rate"].numpy(), 0.1, what="learning_rate")
        assert sorted(state["slots"]) == ["m", "v", "vhat"]
        assert_close(state["slots"]["m"][1].numpy(), [0.2], what="m after one step")  # (1 - 0.9) * 2


def test_iterations_and_learning_rate_are_keras_variables():
    optimizer = RMSprop(learning_rate=0.02)
    assert isinstance(optimizer, keras.optimizers.RMSprop)
    assert optimizer.iterations.dtype == "int64" and int(optimizer.iterations.numpy()) == 0
    assert isinstance(optimizer.learning_rate, keras.Variable) and optimizer.learning_rate.dtype == "float32"
    assert float(optimizer.learning_rate) == pytest.approx(0.02)
    optimizer.learning_rate = 0.0  # allowed, as in Keras
    assert float(optimizer.learning_rate) == 0.0
    assert float(SGD(learning_rate=0.0).learning_rate) == 0.0
    config = RMSprop(learning_rate=0.02, semantics="tfnet").get_config()
    assert config["learning_rate"] == pytest.approx(0.02) and config["rho"] == 0.9 and config["semantics"] == "tfnet"
    rebuilt = RMSprop.from_config(config)
    assert rebuilt.get_config() == config and rebuilt.semantics == "tfnet"


def test_schedule_config_round_trip():
    optimizer = Adam(learning_rate=optimizers.CosineDecay(0.1, 100))
    rebuilt = Adam.from_config(optimizer.get_config())
    assert isinstance(rebuilt._learning_rate, optimizers.CosineDecay)
    assert rebuilt._learning_rate.get_config() == optimizer._learning_rate.get_config()


# ------------------------------------------------------------------------------------------------ distribution
@pytest.fixture(scope="module")
def strategy() -> tf.distribute.MirroredStrategy:
    """One strategy for the module; reduction through one device, so no collective keys are shared with
    strategies other tests create in the same process."""
    if len(tf.config.list_logical_devices("CPU")) < 2:
        raise RuntimeError("tests/conftest.py must configure two logical CPU devices")
    return tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"], cross_device_ops=tf.distribute.ReductionToOneDevice())


def test_aggregate_gradients_sums_across_replicas(strategy):
    with strategy.scope():
        w = tf.Variable([0.0, 0.0])
        optimizer = SGD()

    def replica_fn():
        replica = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
        return optimizer._aggregate_gradients([(tf.stack([replica + 1.0, 10.0 * replica]), w)])[0]

    per_replica = strategy.run(replica_fn)
    for value in strategy.experimental_local_results(per_replica):
        assert_close(value.numpy(), [3.0, 10.0], what="sum of replicas")


def _mirrored_run(strategy, make, stages: bool, in_graph: bool):
    """Three steps of replica gradients (replica + 1) * ones through the engine's stages or Keras's apply."""
    with strategy.scope():
        w = keras.Variable(np.ones((2, 2), np.float32), name="w")
        optimizer = make()

    def replica_fn():
        replica = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
        grad = tf.ones((2, 2)) * (replica + 1.0)
        if stages:
            grads = optimizers.clip_gradients(optimizer, optimizers.aggregate_gradients(optimizer, [(grad, w)]))
            optimizers.apply_gradients(optimizer, grads, [w])
        else:
            optimizer.apply_gradients([(grad, w)])

    def run():
        strategy.run(replica_fn)

    step = tf.function(run) if in_graph else run
    for _ in range(3):
        step()
    assert int(optimizer.iterations.numpy()) == 3
    return w, optimizer


MIRRORED_CASES = {
    "adam_clipnorm": ("Adam", {"clipnorm": 0.5}),
    "sgd_momentum": ("SGD", {"momentum": 0.9}),
    "adamw": ("AdamW", {"weight_decay": 0.1}),
    "rmsprop_momentum": ("RMSprop", {"momentum": 0.5}),
}


@pytest.mark.parametrize("semantics", ["keras", "tfnet"])
@pytest.mark.parametrize("case", MIRRORED_CASES.values(), ids=MIRRORED_CASES.keys())
@pytest.mark.parametrize("in_graph", [False, True], ids=["eager", "tf_function"])
def test_engine_stages_in_mirrored_strategy_equal_single_device(strategy, in_graph, case, semantics):
    """Aggregate (sum), then clip, then apply without a second all-reduce: one device with the summed gradient."""
    class_name, kwargs = case

    def make():
        return getattr(optimizers, class_name)(learning_rate=0.1, semantics=semantics, **kwargs)

    w, optimizer = _mirrored_run(strategy, make, stages=True, in_graph=in_graph)
    single = tf.Variable(np.ones((2, 2), np.float32))
    reference = make()
    for _ in range(3):
        optimizers.apply_gradients(reference, optimizers.clip_gradients(reference, [tf.ones((2, 2)) * 3.0]), [single])
    for component in w.value.values:
        assert_close(component.numpy(), single.numpy(), what="mirrored copy")
    for slot in optimizer.get_slot_names():
        for component in optimizer.get_slot(w, slot).value.values:
            assert_close(component.numpy(), reference.get_slot(single, slot).numpy(), what=f"mirrored slot {slot}")


@pytest.mark.parametrize("in_graph", [False, True], ids=["eager", "tf_function"])
def test_apply_gradients_in_mirrored_strategy_is_keras(strategy, in_graph):
    """apply_gradients with aggregation on: Keras's own path (clip per replica, then sum)."""
    ours_w, ours = _mirrored_run(strategy, lambda: Adam(0.1, clipnorm=0.5), stages=False, in_graph=in_graph)
    keras_w, theirs = _mirrored_run(strategy, lambda: keras.optimizers.Adam(0.1, clipnorm=0.5), stages=False,
                                    in_graph=in_graph)
    for a, b in zip(ours_w.value.values, keras_w.value.values, strict=True):
        assert_close(a.numpy(), b.numpy(), what="weights")
    for a, b in zip(ours.get_slot(ours_w, "m").value.values, theirs._momentums[0].value.values, strict=True):
        assert_close(a.numpy(), b.numpy(), what="slot")


# ------------------------------------------------------------------------------------------------ get()
def test_get_resolves_identifiers():
    instance = Adam()
    assert optimizers.get(instance) is instance
    for name, cls in (("SGD", SGD), ("adam", Adam), ("AdamW", AdamW), ("rmsProp", RMSprop)):
        resolved = optimizers.get(name)
        assert type(resolved) is cls and resolved.semantics == "keras"
    default = optimizers.get(None)
    assert type(default) is RMSprop and default.get_config()["rho"] == 0.9
    for name in ("adam", "sgd", "whatever"):
        resolved = optimizers.get(name, semantics="tfnet")
        assert type(resolved) is RMSprop and resolved.semantics == "tfnet"
        config = resolved.get_config()
        assert (config["learning_rate"], config["rho"], config["epsilon"]) == pytest.approx((0.001, 0.9, 1e-7))


def test_get_takes_any_keras_optimizer():
    nadam = optimizers.get("nadam")
    assert type(nadam) is keras.optimizers.Nadam
    keras_adam = keras.optimizers.Adam()
    assert optimizers.get(keras_adam) is keras_adam
    assert type(optimizers.get("Adagrad")) is keras.optimizers.Adagrad
    from_config = optimizers.get(keras.optimizers.serialize(Adam(0.02, semantics="keras")))
    assert type(from_config) is Adam and float(from_config.learning_rate) == pytest.approx(0.02)
    with pytest.raises(TypeError, match="optimizer.*dict"):
        optimizers.get({"class_name": "SGD", "config": {}}, semantics="tfnet")


def test_get_errors():
    with pytest.raises(ValueError, match="no_such_optimizer"):
        optimizers.get("no_such_optimizer")
    with pytest.raises(TypeError, match="optimizer.*int"):
        optimizers.get(3)
    with pytest.raises(ValueError, match="semantics.*'pytorch'"):
        optimizers.get("adam", semantics="pytorch")
    with pytest.raises(ValueError, match="semantics='tfnet'.*keras.*Nadam"):
        optimizers.set_semantics(keras.optimizers.Nadam(), "tfnet")


# ------------------------------------------------------------------------------------------------ argument errors
@pytest.mark.parametrize(
    "build, error, pattern",
    [
        (lambda: SGD(clipnorm=1.0, global_clipnorm=1.0), ValueError, "clipnorm.*global_clipnorm.*1.0"),
        (lambda: Adam(learning_rate="fast"), ValueError, "learning_rate.*float.*fast"),
        (lambda: AdamW(weight_decay=None), ValueError, "weight_decay.*None"),
        (lambda: SGD(momentum=1.5), ValueError, r"momentum.*\[0, 1\]"),
        (lambda: SGD(semantics="tf"), ValueError, r"semantics.*\('keras', 'tfnet'\).*'tf'"),
        (lambda: SGD()._set_semantics("tf"), ValueError, r"semantics.*\('keras', 'tfnet'\).*'tf'"),
    ],
)
def test_constructor_and_profile_errors(build, error, pattern):
    with pytest.raises(error, match=pattern):
        build()


def test_apply_and_slot_errors():
    optimizer = SGD(momentum=0.5)
    w = tf.Variable(np.zeros((2, 3), np.float32), name="kernel")
    optimizers.build(optimizer, [w])
    with pytest.raises(ValueError, match="Unknown variable"):
        optimizer.apply_gradients([(tf.zeros((2, 3)), tf.Variable(np.zeros((2, 3), np.float32)))])
    with pytest.raises(TypeError, match="experimental_aggregate_gradients.*bool.*'step'"):
        optimizer.apply_gradients([(tf.zeros((2, 3)), w)], "step")
    with pytest.raises(ValueError, match=r"slot_name.*\['momentum'\].*'m'"):
        optimizer.get_slot(w, "m")
    scheduled = SGD(learning_rate=optimizers.ExponentialDecay(0.1, 10, 0.5))
    with pytest.raises(TypeError, match="LearningRateSchedule"):
        scheduled.learning_rate = 0.05
    assert int(optimizer.iterations.numpy()) == 0


def test_empty_gradient_list_is_a_no_op():
    optimizer = Adam()
    optimizer.apply([], [])
    assert int(optimizer.iterations.numpy()) == 0


def test_no_warning_when_every_gradient_is_present():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SGD().apply_gradients([(tf.constant([1.0]), tf.Variable([1.0]))])


@pytest.mark.parametrize("class_name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_constructor_is_keras_with_semantics(class_name):
    ours = inspect.signature(getattr(optimizers, class_name)).parameters
    theirs = list(inspect.signature(getattr(keras.optimizers, class_name).__init__).parameters.values())[1:]
    assert [p for p in ours.values() if p.name != "semantics"] == theirs
    assert ours["semantics"].default == "keras"
    assert issubclass(getattr(optimizers, class_name), getattr(keras.optimizers, class_name))
