"""Learning-rate schedules: Keras 3's ``keras.optimizers.schedules``, re-exported under the engine's package."""

from keras.optimizers.schedules import (
    CosineDecay,
    CosineDecayRestarts,
    ExponentialDecay,
    InverseTimeDecay,
    LearningRateSchedule,
    PiecewiseConstantDecay,
    PolynomialDecay,
    deserialize,
    serialize,
)

__all__ = [
    "LearningRateSchedule",
    "ExponentialDecay",
    "PiecewiseConstantDecay",
    "InverseTimeDecay",
    "PolynomialDecay",
    "CosineDecay",
    "CosineDecayRestarts",
    "serialize",
    "deserialize",
]
