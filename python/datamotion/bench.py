"""Deprecated: moved to :mod:`datamotion.measure.suites`; this name goes in the next release."""

import warnings

from .measure.suites import *  # noqa: F401,F403
from .measure.stats import summarize, time_collective  # noqa: F401
from .measure.results import write_results  # noqa: F401

warnings.warn("datamotion.bench is deprecated: use datamotion.measure.suites", DeprecationWarning, stacklevel=2)
