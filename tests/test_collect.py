"""The survey pass collects garbage less often and gives the process its settings back."""

from __future__ import annotations

import gc

import pytest

from drafter.collect import fewer_collections


def test_thresholds_are_raised_in_the_block_and_restored_after_an_error() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with pytest.raises(RuntimeError), fewer_collections(20_000):
            assert gc.get_threshold() == (20_000, 10, 10)
            raise RuntimeError("a pass that fails")
        assert gc.get_threshold() == (700, 10, 10)
        # a process that already collects less often keeps its own threshold
        gc.set_threshold(90_000, 10, 10)
        with fewer_collections(20_000):
            assert gc.get_threshold()[0] == 90_000
        assert gc.get_threshold() == (90_000, 10, 10)
    finally:
        gc.set_threshold(*before)
