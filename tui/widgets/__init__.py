"""Widgets of the review app, one per module."""
