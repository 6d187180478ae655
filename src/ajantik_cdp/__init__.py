"""Ajantik CDP: crash-test AI agents that drive real browsers."""

__version__ = "0.1.0"
