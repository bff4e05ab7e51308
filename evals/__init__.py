"""Evaluation of drafts against gold reports: how close a draft is, record by record
and quote by quote.

Pipeline (see :func:`evals.evaluate.evaluate`): every witness of both reports is
located at the revision with the project's verifier (:mod:`evals.witnesses`); records
are paired one to one per kind by an optimal assignment over text similarity and
witness overlap (:mod:`evals.alignment`); per-kind and overall scores follow
(:mod:`evals.metrics`) and are shown as a rich table, JSON or an HTML page
(:mod:`evals.scorecard`, :mod:`evals.html`).  Suites of items are run, saved and
compared with the previous run by :mod:`evals.suite`; ``drafter eval`` is
:mod:`evals.cli`.
"""
