"""Deprecated: moved to :mod:`datamotion.measure.gauss`; this name goes in the next release."""

import warnings

from .measure.gauss import *  # noqa: F401,F403

warnings.warn("datamotion.predict is deprecated: use datamotion.measure.gauss", DeprecationWarning, stacklevel=2)
