"""The judged tier of ``drafter eval``: a model reads each reference record beside a
short list of draft records and says which of them cover it.

Why a model: the mechanical alignment (:mod:`evals.coverage`) cannot tell "the same
mechanism, described differently" from "a neighbouring mechanism in the same file";
an analyst labelling a pair reads, and so does the judge.  The mechanical score is
kept as the fast tier and as the shortlist that bounds the judge to at most one call
per reference record.

Why the judge builds its own client here rather than using ``graph``'s: the
dependency rule (``evals`` → ``retrieval`` → ``drafter``) forbids evals to import
graph.  What both need and must not drift (the price table, the default model) lives
in the core (:mod:`drafter.prices`, :mod:`drafter.defaults`); the client itself is one
small seam (:mod:`evals.judge.model`) over the real ``anthropic`` SDK, so it can move
under a shared provider registry later without touching the rest.
"""
