"""evals package."""
