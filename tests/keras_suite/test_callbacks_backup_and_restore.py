"""Keras 3's keras/src/callbacks/backup_and_restore_test.py from the installed wheel (harness: conftest.py)."""

from keras_suite.substitution import export

export("keras.src.callbacks.backup_and_restore_test", globals())
