"""Keras 3's keras/src/models/model_test.py from the installed wheel (harness: conftest.py)."""

from keras_suite.substitution import export

export("keras.src.models.model_test", globals())
