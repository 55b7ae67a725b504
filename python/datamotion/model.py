"""Deprecated: moved to :mod:`datamotion.measure.fit`; this name goes in the next release."""

import warnings

from .measure.fit import *  # noqa: F401,F403
from .measure.predict import predict  # noqa: F401
from .measure.constants import MODEL_SCHEMA, RESULTS_SCHEMA  # noqa: F401

warnings.warn("datamotion.model is deprecated: use datamotion.measure.fit", DeprecationWarning, stacklevel=2)
