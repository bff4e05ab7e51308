"""The fact records and the Python extractor, under the names the rule families import.

The records live in :mod:`retrieval.languages.facts` (one set for every language) and
the Python extractor in :mod:`retrieval.languages.python.extract`; the survey's rule
modules read both through this module.
"""

from __future__ import annotations

from retrieval.languages.facts import (
    FILE_BUDGET_SECONDS as FILE_BUDGET_SECONDS,
)
from retrieval.languages.facts import (
    MAX_TREE_DEPTH as MAX_TREE_DEPTH,
)
from retrieval.languages.facts import (
    Budget as Budget,
)
from retrieval.languages.facts import (
    Call as Call,
)
from retrieval.languages.facts import (
    Def as Def,
)
from retrieval.languages.facts import (
    FileTooComplex as FileTooComplex,
)
from retrieval.languages.facts import (
    PyFile as PyFile,
)
from retrieval.languages.facts import (
    SourceFile as SourceFile,
)
from retrieval.languages.facts import (
    Span as Span,
)
from retrieval.languages.facts import (
    StringLit as StringLit,
)
from retrieval.languages.facts import (
    tree_depth as tree_depth,
)
from retrieval.languages.python.extract import _parser as _parser
from retrieval.languages.python.extract import module_name as module_name
from retrieval.languages.python.extract import parse_python as parse_python
