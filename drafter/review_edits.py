"""Field edits an analyst makes to a record in review, as pure functions.

Why apart from the store: an edit is stored as (field name, new value) and applied
when the review is shown or exported; the same functions check a value when it is
typed (so a bad edit is refused then, not at export) and rebuild the edited record
from the log's rows, whichever backend holds them.
"""

from __future__ import annotations

from drafter.errors import BadInput
from drafter.model import Bullet, Paragraph, Record, WitnessBlock

LABEL_FIELD = "Label"
PART_OF_FIELD = "Part of"


def editable_fields(r: Record) -> list[str]:
    """Fields an analyst can edit in place: label, part-of, named bullets, paragraphs."""
    out = [LABEL_FIELD, PART_OF_FIELD]
    out.extend(b.name for b in r.blocks if isinstance(b, Bullet) and b.name is not None)
    n = sum(1 for b in r.blocks if isinstance(b, Paragraph))
    out.extend(f"Paragraph {i + 1}" for i in range(n))
    return list(dict.fromkeys(out))  # first occurrence of each, in order


def field_value(r: Record, name: str) -> str:
    """The current value of an editable field (empty if absent)."""
    if name == LABEL_FIELD:
        return r.label
    if name == PART_OF_FIELD:
        return r.part_of or ""
    if name.startswith("Paragraph "):
        idx = _paragraph_index(name)
        paras = r.paragraphs
        return paras[idx] if idx is not None and idx < len(paras) else ""
    return r.fields.get(name, "")


def _paragraph_index(name: str) -> int | None:
    try:
        return int(name.removeprefix("Paragraph ")) - 1
    except ValueError:
        return None


def apply_edit(r: Record, name: str, value: str) -> Record:
    """A copy of ``r`` with one field replaced; an absent bullet field is appended.

    Raises BadInput for values the report model refuses (an empty label, a part-of
    that is not a record ID), so a bad edit is refused when it is made, not at export.
    """
    new = r.model_copy(deep=True)
    try:
        if name == LABEL_FIELD:
            return Record.model_validate({**new.model_dump(), "label": value})
        if name == PART_OF_FIELD:
            return Record.model_validate({**new.model_dump(), "part_of": value.strip() or None})
    except ValueError as exc:
        raise BadInput(f"{r.id}: cannot set {name}: {_first_error(exc)}") from None
    if name.startswith("Paragraph "):
        idx = _paragraph_index(name)
        paras = [i for i, b in enumerate(new.blocks) if isinstance(b, Paragraph)]
        if idx is None or not 0 <= idx < len(paras):
            raise BadInput(f"{r.id}: no field {name!r}")
        new.blocks[paras[idx]] = Paragraph(text=value)
        return new
    for i, b in enumerate(new.blocks):
        if isinstance(b, Bullet) and b.name == name:
            new.blocks[i] = Bullet(name=name, value=value)
            return new
    if not name.strip() or ":" in name:
        raise BadInput(f"{r.id}: {name!r} is not a field name")
    # place a new field after the last bullet, else before the first witness
    at = max((i + 1 for i, b in enumerate(new.blocks) if isinstance(b, Bullet)), default=None)
    if at is None:
        at = next(
            (i for i, b in enumerate(new.blocks) if isinstance(b, WitnessBlock)), len(new.blocks)
        )
    new.blocks.insert(at, Bullet(name=name, value=value))
    return new


def _first_error(exc: ValueError) -> str:
    errs = getattr(exc, "errors", None)
    if callable(errs):
        try:
            return str(errs()[0]["msg"])
        except Exception:  # noqa: BLE001 - fall back to the plain message
            pass
    return str(exc).splitlines()[0]
