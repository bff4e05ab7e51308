"""A survey indexed once for the lookups every drafting rule makes.

The index (:class:`SurveyIndex`, built by :meth:`Survey.index`: findings by ID, by
category, by file and by call-graph node, callers, entry units) is defined in
:mod:`retrieval.survey.model` beside the survey it reads, so the two modules do not
import each other; this module is where its users import it from.
"""

from retrieval.survey.model import EFFECT_CATEGORIES, EntryUnit, SurveyIndex

__all__ = ["EFFECT_CATEGORIES", "EntryUnit", "SurveyIndex"]
