"""perflab: a dashboard for Linux performance-tuning experiments."""

__version__ = "0.1.0"
