"""Keras 3's keras/src/trainers/trainer_test.py from the installed wheel (harness: conftest.py)."""

from keras_suite.substitution import export

export("keras.src.trainers.trainer_test", globals())
