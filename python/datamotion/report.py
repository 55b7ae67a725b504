"""Deprecated: moved to :mod:`datamotion.measure.report`; this name goes in the next release."""

import warnings

from .measure.report import *  # noqa: F401,F403
from .measure.results import load_results, load_model  # noqa: F401

warnings.warn("datamotion.report is deprecated: use datamotion.measure.report", DeprecationWarning, stacklevel=2)
