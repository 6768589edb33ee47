"""Gradient clipping and the SGD / Adam / AdamW / RMSprop updates in float32 NumPy, per semantics profile.

``keras``: Keras 3's formulas (optimizers/*.py ``update_step``; clipping in ``base_optimizer._clip_gradients``
with TensorFlow's ``clip_by_norm``; AdamW decays ``var -= var * wd * lr`` before the step). Python constants
such as ``1 - beta_1`` are computed in double precision and then rounded, as Keras does.

``tfnet``: TensorFlow.NET 0.15 (``OptimizerV2`` and its subclasses with TensorFlow's training kernels):
clipping options are ignored; SGD ``nesterov`` is never applied; Adam uses the ResourceApplyAdam kernel
(``1 - beta`` computed in float32); ``amsgrad`` throws; AdamW adds ``-lr0 * var * wd`` (constructor learning
rate) before the Adam step; RMSprop ignores ``momentum``, puts epsilon outside the square root, and
``centered`` throws.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfnet_train.conformance import f32 as F
from tfnet_train.conformance.case import OptimizerSpec
from tfnet_train.semantics import get_profile

Arrays = list[np.ndarray]


# ----------------------------------------------------------------------------------------------- clipping


def clip_by_norm(g: np.ndarray, clip_norm: float) -> np.ndarray:
    """TensorFlow's clip_by_norm: g * c / max(||g||, c), with ||g|| = 0 kept at 0."""
    c = F.c32(clip_norm)
    l2sum = F.sum_(F.mul(g, g))
    l2norm = F.sqrt(l2sum) if l2sum > 0 else l2sum
    return F.div(F.mul(g, c), F.maximum(l2norm, c))


def clip_by_global_norm(grads: Arrays, clip_norm: float) -> Arrays:
    """Keras 3's clip_by_global_norm: scale every gradient by c * min(1/norm, 1/c)."""
    squared = F.sum_(np.stack([F.sum_(F.square(g)) for g in grads]))
    norm = F.sqrt(squared)
    with np.errstate(divide="ignore"):
        scale = F.mul(F.c32(clip_norm), F.minimum(F.div(1.0, norm), F.c32(1.0 / clip_norm)))
    scale = F.add(scale, F.sub(norm, norm))
    return [F.mul(g, scale) for g in grads]


def clip_gradients(spec: OptimizerSpec, grads: Arrays, semantics: str) -> Arrays:
    """Keras 3: clipnorm per tensor, or global_clipnorm, or clipvalue. tfnet: unchanged.

    Two clip options are a ValueError in both profiles: Keras 3's optimizers, which the engine's are, refuse
    the pair (TensorFlow.NET took both and read neither)."""
    p = spec.params
    clips = [key for key in ("clipnorm", "clipvalue", "global_clipnorm") if p.get(key) is not None]
    if len(clips) > 1:
        raise ValueError(f"Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set, got "
                         f"{', '.join(f'{k}={p[k]!r}' for k in clips)}")
    if not get_profile(semantics).clips_gradients:
        return list(grads)
    if p.get("clipnorm"):
        return [clip_by_norm(g, p["clipnorm"]) for g in grads]
    if p.get("global_clipnorm"):
        return clip_by_global_norm(grads, p["global_clipnorm"])
    if p.get("clipvalue"):
        v = F.c32(p["clipvalue"])
        return [F.clip(g, -v, v) for g in grads]
    return list(grads)


# ----------------------------------------------------------------------------------------------- optimizers


class NumpyOptimizer:
    """Slots (one array per trainable variable) and the iteration counter of one optimizer."""

    slot_names: tuple[str, ...] = ()

    def __init__(self, spec: OptimizerSpec, semantics: str, shapes: list[tuple[int, ...]]) -> None:
        self.spec = spec
        self.p: dict[str, Any] = dict(spec.params)
        self.semantics = semantics
        self.tfnet = get_profile(semantics).tfnet_optimizer_updates  # TF.NET's kernels and formulas
        self.iterations = 0
        self.lr = F.c32(self.p["learning_rate"])
        self.slots: dict[str, Arrays] = {
            name: [np.zeros(s, dtype=np.float32) for s in shapes] for name in self.active_slots()}

    def active_slots(self) -> tuple[str, ...]:
        return self.slot_names

    def apply(self, grads: Arrays, weights: Arrays) -> Arrays:
        """Update every weight and then the iteration counter; returns the new weights."""
        self.check_supported()
        new = [self.update(i, g, w) for i, (g, w) in enumerate(zip(grads, weights, strict=True))]
        self.iterations += 1
        return new

    def check_supported(self) -> None:
        """Raise NotImplementedError where TensorFlow.NET throws."""

    def update(self, i: int, g: np.ndarray, w: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def state(self) -> dict[str, Any]:
        return {"iterations": self.iterations, "learning_rate": float(self.lr),
                "slots": {k: [a.copy() for a in v] for k, v in self.slots.items()}}


class SGD(NumpyOptimizer):
    def active_slots(self) -> tuple[str, ...]:
        return ("momentum",) if self.p["momentum"] > 0 else ()

    def update(self, i: int, g: np.ndarray, w: np.ndarray) -> np.ndarray:
        if not self.slots:
            return F.sub(w, F.mul(g, self.lr))
        mu = F.c32(self.p["momentum"])
        m = F.sub(F.mul(self.slots["momentum"][i], mu), F.mul(g, self.lr))
        self.slots["momentum"][i] = m
        if self.p["nesterov"] and not self.tfnet:
            return F.add(w, F.sub(F.mul(m, mu), F.mul(g, self.lr)))
        return F.add(w, m)


class Adam(NumpyOptimizer):
    def active_slots(self) -> tuple[str, ...]:
        return ("m", "v", "vhat") if self.p["amsgrad"] else ("m", "v")

    def check_supported(self) -> None:
        if self.tfnet and self.p["amsgrad"]:
            raise NotImplementedError("amsgrad is not implemented under semantics 'tfnet' "
                                      "(TensorFlow.NET's Adam throws NotImplementedException)")

    def one_minus(self, beta: float) -> np.ndarray:
        if self.tfnet:  # the kernel computes T(1) - beta in float32
            return F.sub(1, F.c32(beta))
        return F.c32(1.0 - beta)  # Python double, then float32

    def update(self, i: int, g: np.ndarray, w: np.ndarray) -> np.ndarray:
        step = F.c32(self.iterations + 1)
        b1_power = F.power(F.c32(self.p["beta_1"]), step)
        b2_power = F.power(F.c32(self.p["beta_2"]), step)
        alpha = F.div(F.mul(self.lr, F.sqrt(F.sub(1, b2_power))), F.sub(1, b1_power))
        m = F.add(self.slots["m"][i], F.mul(F.sub(g, self.slots["m"][i]), self.one_minus(self.p["beta_1"])))
        v = F.add(self.slots["v"][i], F.mul(F.sub(F.square(g), self.slots["v"][i]),
                                            self.one_minus(self.p["beta_2"])))
        self.slots["m"][i], self.slots["v"][i] = m, v
        if "vhat" in self.slots:
            v = F.maximum(self.slots["vhat"][i], v)
            self.slots["vhat"][i] = v
        return F.sub(w, F.div(F.mul(m, alpha), F.add(F.sqrt(v), F.c32(self.p["epsilon"]))))


class AdamW(Adam):
    def update(self, i: int, g: np.ndarray, w: np.ndarray) -> np.ndarray:
        wd = F.c32(self.p["weight_decay"])
        if self.tfnet:
            w = F.add(w, F.mul(F.mul(-F.c32(self.p["learning_rate"]), w), wd))
        else:
            w = F.sub(w, F.mul(F.mul(w, wd), self.lr))
        return super().update(i, g, w)


class RMSprop(NumpyOptimizer):
    def active_slots(self) -> tuple[str, ...]:
        if self.tfnet:
            return ("rms", "mg") if self.p["centered"] else ("rms",)
        names = ["rms"]
        if self.p["momentum"] > 0:
            names.append("momentum")
        if self.p["centered"]:
            names.append("mg")
        return tuple(names)

    def check_supported(self) -> None:
        if self.tfnet and self.p["centered"]:
            raise NotImplementedError("centered RMSprop is not implemented under semantics 'tfnet' "
                                      "(TensorFlow.NET's RMSprop throws NotImplementedException)")

    def update(self, i: int, g: np.ndarray, w: np.ndarray) -> np.ndarray:
        rho = self.p["rho"]
        eps = F.c32(self.p["epsilon"])
        if self.tfnet:
            rms = F.add(F.mul(F.c32(rho), self.slots["rms"][i]), F.mul(F.sub(1, F.c32(rho)), F.square(g)))
            self.slots["rms"][i] = rms
            return F.sub(w, F.div(F.mul(self.lr, g), F.add(F.sqrt(rms), eps)))
        one_minus_rho = F.c32(1.0 - rho)
        rms = F.add(F.mul(F.c32(rho), self.slots["rms"][i]), F.mul(one_minus_rho, F.square(g)))
        self.slots["rms"][i] = rms
        if "mg" in self.slots:
            mg = F.add(F.mul(F.c32(rho), self.slots["mg"][i]), F.mul(one_minus_rho, g))
            self.slots["mg"][i] = mg
            denominator = F.add(F.sub(rms, F.square(mg)), eps)
        else:
            denominator = F.add(rms, eps)
        increment = F.div(F.mul(self.lr, g), F.sqrt(denominator))
        if "momentum" in self.slots:
            velocity = F.add(F.mul(F.c32(self.p["momentum"]), self.slots["momentum"][i]), increment)
            self.slots["momentum"][i] = velocity
            return F.sub(w, velocity)
        return F.sub(w, increment)


OPTIMIZERS: dict[str, type[NumpyOptimizer]] = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop}


def make_optimizer(spec: OptimizerSpec, semantics: str, shapes: list[tuple[int, ...]]) -> NumpyOptimizer:
    return OPTIMIZERS[spec.name](spec, semantics, shapes)
