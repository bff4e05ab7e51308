"""Evaluation of drafts against gold reports: how close a draft is, record by record
and quote by quote, and how far each figure is above a trivial answer.

Pipeline (see :func:`evals.evaluate.evaluate`): every witness of both reports is
located at the revision with the project's verifier (:mod:`evals.witnesses`); draft
records are linked with the gold records they cover (:mod:`evals.coverage`, the
default: a draft record may cover several; :mod:`evals.alignment` keeps best-gold and
one-to-one on request);
matched pairs are compared field by field (:mod:`evals.content`); per-kind and overall
scores follow (:mod:`evals.metrics`), beside the scores of trivial drafts on the same
gold (:mod:`evals.baselines`) and a heuristic support score per witness
(:mod:`evals.support`), shown as a rich table, JSON or an HTML page
(:mod:`evals.scorecard`, :mod:`evals.html`).  The alignment is checked against hand
labels (:mod:`evals.labels`, saved verifier answers in :mod:`evals.located`), and the
coverage rule is fitted on some labelled systems and reported on the others
(:mod:`evals.fit`, ``benchmarks/loso.py``).  Suites
of items are run, saved and compared with the previous run by :mod:`evals.suite`;
``drafter eval`` is :mod:`evals.cli`.
"""
