"""Triage: classify support tickets on your own machine with a small language model."""

__version__ = "0.1.0"
