"""tinkerbot: a small self-improving coding agent."""

__version__ = "0.3.0"
