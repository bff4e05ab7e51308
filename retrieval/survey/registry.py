"""The survey's rule registry: every detector the survey runs, with what it applies to.

Why a registry: the survey grew a dozen rule families, each called by hand from the
runner with its own arguments, so adding a detector meant reading the whole runner.
Here a rule is data -- a ``name``, the ``scope`` it runs on (one source file of a named
language, one text file, or the whole repository after the per-file rules), a line
saying what it applies to, the ``detector`` function and how to call it -- and the
runner only walks :attr:`Registry.source_rules` (those of each file's language),
:attr:`Registry.text_rules` and :attr:`Registry.repository_rules` in registration
order.  Each language registers its own source rules (its folder's ``rules.py``).
The order is part of the survey's output (duplicate findings keep the first hit), so
rules are appended, never sorted.  The default registry is :data:`retrieval.survey.rules.RULES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from retrieval.languages.facts import SourceFile
from retrieval.survey.base import Hit
from retrieval.survey.callgraph import Resolver
from retrieval.survey.model import CallGraph

Scope = Literal["source file", "text file", "repository"]
T = TypeVar("T")


@dataclass(slots=True)
class TextFile:
    """A file of no surveyed language the survey reads (config, shell, prompt, documentation) or
    ``setup.py`` read as text.  ``earlier`` holds what the rules before this one found
    in the same file, by rule name, for rules that depend on another's result."""

    path: str
    text: str
    earlier: dict[str, list[Hit]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The file's base name."""
        return self.path.rsplit("/", 1)[-1]


@dataclass(slots=True)
class Repo:
    """What rules may know about the whole revision besides the file they look at."""

    #: Every parsed source file, of every language, in path order.
    files: list[SourceFile]
    text_files: list[TextFile]
    graph: CallGraph
    resolve: Resolver
    #: Dotted names of the repository's own modules.
    modules: set[str]
    #: Bare names of the repository's own functions and methods.
    function_names: set[str]
    #: Does a short string literal of the code name this file (its base name)?
    named_in_code: Callable[[str], bool]

    def files_in(self, language: str) -> list[SourceFile]:
        """The parsed source files of one language."""
        return [f for f in self.files if f.language == language]


def _always(_: object) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Rule(Generic[T]):
    """One detector.  ``call(target, repo)`` runs it on a target of its scope (a
    :class:`SourceFile` of ``language``, a :class:`TextFile`, or, for repository rules,
    the hits found so far) when ``when(target)`` holds."""

    name: str
    scope: Scope
    applies_to: str
    #: The function that finds things; what :attr:`call` ends up calling.
    detector: Callable[..., list[Hit]]
    call: Callable[[T, Repo], list[Hit]]
    when: Callable[[T], bool] = _always
    #: The language whose source files a source-file rule reads (None for other scopes).
    language: str | None = None


@dataclass(slots=True)
class Registry:
    """Rules by scope, in the order they run."""

    source_rules: list[Rule[SourceFile]] = field(default_factory=list)
    text_rules: list[Rule[TextFile]] = field(default_factory=list)
    repository_rules: list[Rule[list[Hit]]] = field(default_factory=list)

    def _check_new(self, name: str) -> None:
        if any(r.name == name for r in self.all()):
            raise ValueError(f"a survey rule named {name!r} is already registered")

    def source(
        self,
        language: str,
        name: str,
        detector: Callable[..., list[Hit]],
        *,
        applies_to: str,
        call: Callable[[SourceFile, Repo], list[Hit]] | None = None,
    ) -> Rule[SourceFile]:
        """Register a rule run on each parsed source file of ``language``;
        ``detector(pf)`` unless ``call`` says how to pass it more of the repository."""
        self._check_new(name)
        rule: Rule[SourceFile] = Rule(
            name,
            "source file",
            applies_to,
            detector,
            call or (lambda pf, _: detector(pf)),
            language=language,
        )
        self.source_rules.append(rule)
        return rule

    def python(
        self,
        name: str,
        detector: Callable[..., list[Hit]],
        *,
        applies_to: str = "every Python file",
        call: Callable[[SourceFile, Repo], list[Hit]] | None = None,
    ) -> Rule[SourceFile]:
        """A source rule of the Python language (see :meth:`source`)."""
        return self.source("python", name, detector, applies_to=applies_to, call=call)

    def for_language(self, language: str) -> list[Rule[SourceFile]]:
        """The source rules of one language, in registration order."""
        return [r for r in self.source_rules if r.language == language]

    def text(
        self,
        name: str,
        detector: Callable[..., list[Hit]],
        *,
        applies_to: str,
        when: Callable[[TextFile], bool],
        call: Callable[[TextFile, Repo], list[Hit]] | None = None,
    ) -> Rule[TextFile]:
        """Register a rule run on each text file ``when`` accepts;
        ``detector(path, text)`` unless ``call`` says otherwise."""
        self._check_new(name)
        rule: Rule[TextFile] = Rule(
            name,
            "text file",
            applies_to,
            detector,
            call or (lambda tf, _: detector(tf.path, tf.text)),
            when,
        )
        self.text_rules.append(rule)
        return rule

    def repository(
        self,
        name: str,
        detector: Callable[..., list[Hit]],
        *,
        applies_to: str,
        call: Callable[[list[Hit], Repo], list[Hit]] | None = None,
    ) -> Rule[list[Hit]]:
        """Register a cross-file pass run once after the per-file rules, on the hits
        found so far; ``detector(hits, repo)`` unless ``call`` says otherwise."""
        self._check_new(name)
        rule: Rule[list[Hit]] = Rule(
            name, "repository", applies_to, detector, call or (lambda h, repo: detector(h, repo))
        )
        self.repository_rules.append(rule)
        return rule

    def all(self) -> list[Rule[Any]]:
        """Every rule, in the order the survey runs them."""
        return [*self.source_rules, *self.text_rules, *self.repository_rules]

    def copy(self) -> Registry:
        """An independent registry with the same rules (to add one without touching
        the default)."""
        return Registry(list(self.source_rules), list(self.text_rules), list(self.repository_rules))
