"""Offline recipes, one module per record family (see ``graph.proposers.offline.plan``)."""
