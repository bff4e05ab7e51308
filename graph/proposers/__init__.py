"""Proposers: offline rules and Claude."""
