"""drafter: source-grounded analysis reports about agentic AI systems."""

__version__ = "0.1.0"
