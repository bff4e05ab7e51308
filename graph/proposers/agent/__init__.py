"""The provider-neutral agent: tool loop, snapshot tools, context, schema and fold.

Every model transport (:mod:`graph.proposers.providers`) drives these pieces; nothing
here knows which provider answers.
"""
