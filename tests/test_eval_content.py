"""Content agreement, lead agreement, support and baselines: hand-computed cases, a
copy of the gold (1.0 everywhere) and a shuffled gold (near the baseline).

Hand cases use the TF-IDF backend, where identical texts score 1 and texts with no
word in common score 0, so every expected value below can be checked by eye.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from drafter.model import SECTION_KIND, Bullet, Paragraph, Record, Witness, WitnessBlock
from drafter.sample import SAMPLE_SHA, SampleRepo
from drafter.snapshot import Snapshot
from evals.alignment import KindAlignment, Pair
from evals.baselines import CONSTANT_STATUS, ENTRY_POINTS, RANDOM_WITNESSES, random_witness_draft
from evals.content import DISAGREE, SAME, UNKNOWN, content_agreement, is_unknown
from evals.evaluate import evaluate
from evals.gold import sample_gold
from evals.similarity import lexical_similarity
from evals.support import identifier_overlap, names, witness_support


def _rec(rid: str, paragraph: str, bullets: list[tuple[str, str]] = ()) -> Record:  # type: ignore[assignment]
    blocks: list = [Paragraph(text=paragraph)]
    blocks += [Bullet(name=n, value=v) for n, v in bullets]
    return Record(id=rid, label=rid, blocks=blocks)


def _one_pair(gold: Record, draft: Record) -> dict[str, KindAlignment]:
    key = "-".join(gold.id.split("-")[:2])
    ka = KindAlignment(key, gold=[0], draft=[0])
    ka.pairs.append(Pair(gold, draft, 0, 0, 1.0, 1.0, None))
    return {key: ka}


GOLD_ROUTE = [
    ("implementation conclusion status", "wired"),
    ("operation conclusion status", "uninspected"),
    ("Immediate return", "the completed process."),
    ("Later read-back", "none."),
    ("Delegated visibility", "the shell sees the whole host."),
    ("Invalidation or expiry", "unknown"),
    ("Activation or effect", "runs a shell command."),
    ("Evidence limits", "no trace supplied."),
]
DRAFT_ROUTE = [
    ("implementation conclusion status", "wired"),  # same (exact value)
    ("operation conclusion status", "uninspected"),  # both unknown
    ("Immediate return", "the completed process."),  # same (identical text)
    # Later read-back missing: gold says "none." (a finding) -> disagree
    ("Delegated visibility", "model tokens only"),  # no shared word -> disagree
    # Selection predicate missing on both sides -> both unknown
    ("Invalidation or expiry", "not determined offline"),  # both unknown
    ("Activation or effect", "runs a shell command."),  # same
    ("Evidence limits", "uninspected"),  # gold knows, draft does not -> disagree
]


def test_route_content_agreement_by_hand() -> None:
    gold = _rec("RT-RTE-g", "Endpoints/progression: cli → run → shell.", GOLD_ROUTE)
    draft = _rec("RT-RTE-d", "Endpoints/progression: cli → run → shell.", DRAFT_ROUTE)
    ca = content_agreement(_one_pair(gold, draft), lexical_similarity)
    outcome = {c.field: c.outcome for c in ca.comparisons if c.table == "route"}
    assert outcome == {
        "implementation conclusion status": SAME,
        "operation conclusion status": UNKNOWN,
        "Immediate return": SAME,
        "Later read-back": DISAGREE,
        "Delegated visibility": DISAGREE,
        "Selection predicate": UNKNOWN,
        "Invalidation or expiry": UNKNOWN,
        "Activation or effect": SAME,
        "Evidence limits": DISAGREE,
    }
    assert ca.route_agreement == pytest.approx(3 / 6)
    assert ca.lead["endpoints"].same == 1 and ca.lead_agreement == 1.0


def test_lead_agreement_by_hand_across_kinds() -> None:
    gold = _rec(
        "RT-BAP-g",
        "Consumer: the task model. Channel: prompts/system.md read each task. "
        "Force: requested conduct. Horizon: every later task.",
    )
    # a draft object answering a behavioural-authority path: read with BAP labels
    draft = _rec(
        "RT-OBJ-d",
        "Consumer: the task model. Channel: a socket. Force: requested conduct.",
    )
    ca = content_agreement(_one_pair(gold, draft), lexical_similarity)
    got = {c.field: c.outcome for c in ca.comparisons}
    assert got == {"consumer": SAME, "channel": DISAGREE, "force": SAME, "horizon": DISAGREE}
    assert ca.lead_agreement == 0.5 and ca.route == {}


def test_unknown_words() -> None:
    assert is_unknown(None) and is_unknown("  ") and is_unknown("Uninspected.")
    assert is_unknown("not determined statically") and not is_unknown("none.")


def test_support_by_hand() -> None:
    rec = Record(
        id="RT-RTE-x",
        label="x",
        blocks=[
            Paragraph(text="The agent calls call_model with the task."),
            WitnessBlock(witness=Witness(quote="reply = call_model(task)", path="a.py")),
            Paragraph(text="Nothing here."),
            WitnessBlock(witness=Witness(quote="to be or no", path="b.md")),
        ],
    )
    from drafter.model import RecordSection as Section
    from drafter.model import Report, ReportType

    rep = Report(
        system="s", type=ReportType.runtime, sections=[Section(title="Routes", records=[rec])]
    )
    # quote names {reply, call_model, call, model, task}; the prose shares 4 of 5
    assert names("reply = call_model(task)") == {"reply", "call_model", "call", "model", "task"}
    assert (
        identifier_overlap("reply = call_model(task)", "The agent calls call_model with the task.")
        == 0.8
    )

    def fixed(a: list[str], b: list[str]) -> np.ndarray:
        return np.full((len(a), len(b)), 0.4)

    first, second = witness_support(rep, fixed).items
    assert first.support == pytest.approx((0.4 + 0.8) / 2)
    assert second.overlap is None and second.support == pytest.approx(0.4)  # no names
    assert witness_support(rep, fixed).summary()["n"] == 2


def _support_record(blocks: list[object]) -> object:
    from drafter.model import RecordSection as Section
    from drafter.model import Report, ReportType

    rec = Record(id="RT-BAP-x", label="Generated code runs", blocks=blocks)  # type: ignore[arg-type]
    return Report(
        system="s", type=ReportType.runtime, sections=[Section(title="Paths", records=[rec])]
    )


def test_quotes_after_one_paragraph_are_all_cited_by_it() -> None:
    """A record that argues first and quotes after: every quote of the run is cited by
    the paragraph before it.  Read one witness at a time, only the first was; the rest
    fell back to the label and the first 400 characters, which name none of them."""
    filler = "This paragraph sets the scene at length without naming any code. " * 8
    rep = _support_record(
        [
            Paragraph(text=filler),
            Paragraph(
                text="Channel: the model's code goes to exec(forward_str, globals(), namespace) "
                "and is bound by setattr(AgentSystem, 'forward', func)."
            ),
            WitnessBlock(
                witness=Witness(quote="exec(forward_str, globals(), namespace)", path="s.py")
            ),
            WitnessBlock(
                witness=Witness(quote='setattr(AgentSystem, "forward", func)', path="s.py")
            ),
        ]
    )

    def zero(a: list[str], b: list[str]) -> np.ndarray:
        return np.zeros((len(a), len(b)))

    first, second = witness_support(rep, zero).items  # type: ignore[arg-type]
    assert first.overlap == 1.0
    assert second.overlap == 1.0 and second.support == 0.5


def test_identifier_overlap_counts_a_name_used_as_the_start_of_a_word() -> None:
    quote = "exec(forward_str, globals(), namespace)"
    prose = "The draft executes forward_str in the module's globals namespace."
    assert identifier_overlap(quote, prose) == 1.0  # exec ~ executes
    assert identifier_overlap("y = computes(items)", "it compute the item") == 1.0  # both ways
    assert identifier_overlap("gen = 1", "generated text") == 0.0  # too short to stretch


@pytest.fixture(scope="module")
def sample_snapshot(sample: SampleRepo):  # type: ignore[no-untyped-def]
    with Snapshot(sample.path, SAMPLE_SHA) as snap:
        yield snap


def test_copy_of_gold_scores_one_everywhere(sample_snapshot: Snapshot) -> None:
    gold = sample_gold()
    card = evaluate(gold, gold, sample_snapshot, similarity="lexical")
    o = card.overall
    for name in (
        "precision", "recall", "f1", "file_recall", "line_recall", "line_precision",
        "validity", "status_agreement", "route_agreement", "lead_agreement",
    ):  # fmt: skip
        assert getattr(o, name) == 1.0, name
    assert {(p.gold.id, p.draft.id) for ka in card.alignment.values() for p in ka.pairs} == {
        (r.id, r.id) for r in gold.records
    }
    assert all(g == d for g, d in card.kind_confusion())


def _shuffled(gold_records: list[Record]) -> list[Record]:
    """Each record keeps its ID, label and witnesses but says what a record of another
    kind says: its prose (lead, fields, statuses) is swapped in from another kind."""
    rng = random.Random(3)
    out: list[Record] = []
    for r in gold_records:
        donor = rng.choice([o for o in gold_records if o.kind != r.kind])
        prose = [b for b in donor.blocks if not isinstance(b, WitnessBlock)]
        own = [b for b in r.blocks if isinstance(b, WitnessBlock)]
        out.append(Record(id=r.id, label=r.label, blocks=[*prose, *own]))
    return out


def test_shuffled_gold_scores_near_the_baseline(sample_snapshot: Snapshot) -> None:
    gold = sample_gold()
    shuffled = gold.model_copy(deep=True)
    records = _shuffled(gold.records)
    for section in shuffled.sections:
        section.records = [r for r in records if r.kind == SECTION_KIND.get(section.title)]
    # best-gold: the coverage default weighs prose and names, not line overlap, so it
    # follows the swapped prose (a property of the alignment, not of content agreement)
    card = evaluate(
        gold, shuffled, sample_snapshot, similarity="lexical", baselines=True, method="best-gold"
    )
    o, const = card.overall, card.baselines[CONSTANT_STATUS]
    assert set(card.baselines) == {CONSTANT_STATUS, ENTRY_POINTS, RANDOM_WITNESSES}
    print(
        f"\nshuffled: status {o.status_agreement}, route {o.route_agreement}, "
        f"lead {o.lead_agreement}; constant: {const['status_agreement']}, "
        f"{const['route_agreement']}, {const['lead_agreement']}"
    )
    # labels and witnesses still find the right partners ...
    assert o.recall is not None and o.recall >= 0.8
    # ... but what the records say is another kind's: content falls to the trivial answer
    for name in ("status_agreement", "route_agreement", "lead_agreement"):
        value = getattr(o, name) or 0.0
        assert value <= (const[name] or 0.0) + 0.15, (name, value, const[name])


def test_random_witness_baseline_is_seeded_and_sized(sample_snapshot: Snapshot) -> None:
    gold = sample_gold()
    a = random_witness_draft(gold, sample_snapshot)
    b = random_witness_draft(gold, sample_snapshot)
    assert a.to_json() == b.to_json()
    assert [r.kind for r in a.records] == [r.kind for r in gold.records]
    assert [len(r.witnesses) for r in a.records] == [len(r.witnesses) for r in gold.records]
    assert len(a.witnesses) == sum(len(r.witnesses) for r in gold.records)  # no account
    assert all(Path(w.path).name for w in a.witnesses)


def test_html_page_shows_pairs_side_by_side_with_shared_witnesses(
    sample_snapshot: Snapshot,
) -> None:
    from evals.html import render_html

    gold = sample_gold()
    draft = gold.model_copy(deep=True)
    routes = next(s for s in draft.sections if s.title == "Routes")
    dropped = routes.records.pop(0)  # a gold route with no counterpart
    claims = next(s for s in draft.sections if s.title == "Claims")
    claims.records.append(
        Record(
            id="RT-CLM-invented",
            label="Invented <claim>",
            blocks=[Paragraph(text="Claimed operation: the moon is cheese.")],
        )
    )
    card = evaluate(gold, draft, sample_snapshot, similarity="lexical", support=True)
    page = render_html(card)
    assert "w line shared" in page and "shared with the partner" in page
    unmatched_gold = page.index("Unmatched gold records")
    assert page.index(dropped.id, unmatched_gold) > unmatched_gold
    assert "Unmatched draft records" in page and "Invented &lt;claim&gt;" in page
    assert '<table class="scores fields">' in page and "Witness support" in page
    assert "Kind confusion" in page


def test_lead_labels_match_whatever_their_case() -> None:
    gold = _rec(
        "RT-CMP-g",
        "Source-native identity: config.MODEL. Representational form: distributed-parametric; "
        "storage substrate: external provider deployment.",
    )
    draft = _rec(
        "RT-CMP-d",
        "Source-native identity: config.MODEL. Representational form: distributed-parametric. "
        "Storage substrate: external provider deployment.",
    )
    ca = content_agreement(_one_pair(gold, draft), lexical_similarity)
    assert {c.field: c.outcome for c in ca.comparisons} == {
        "identity": SAME,
        "form": SAME,
        "substrate": SAME,
    }


def test_a_lead_value_stops_at_its_paragraph() -> None:
    """The last lead field of a paragraph is followed by a paragraph that opens in lower
    case; read across paragraphs, the substrate took that whole paragraph in."""
    from evals.content import lead_values

    rec = Record(
        id="RT-CMP-g",
        label="g",
        blocks=[
            Paragraph(
                text="Source-native identity: LLMAgentBase.model. Representational form: "
                "distributed-parametric provider model. Storage substrate: an external deployment."
            ),
            Paragraph(text="max_tokens is 4096 in one script and 1024 in another."),
        ],
    )
    values = lead_values(rec, "CMP")
    assert values["substrate"] == "an external deployment."
    assert values["form"] == "distributed-parametric provider model."


def test_form_is_compared_on_its_leading_statement() -> None:
    """A draft that states the form and then qualifies it at length agrees with a gold
    that states the same form alone; a different form still disagrees."""
    gold = _rec(
        "RT-CMP-g",
        "Source-native identity: args.model. Representational form: distributed-parametric. "
        "Storage substrate: external provider deployment.",
    )
    long_form = (
        "Representational form: distributed-parametric; each request is the growing message "
        "list sent with temperature 0.8, max tokens 4096 and a JSON response format, and the "
        "reply is parsed into the candidate dictionary with thought, name and code keys."
    )
    draft = _rec(
        "RT-CMP-d",
        f"Source-native identity: args.model. {long_form} Storage substrate: external provider "
        "deployment — nothing of the model is in the repository, no key or base URL is set.",
    )
    other = _rec("RT-CMP-o", "Representational form: natural-language templates; kept as text.")
    got = {
        c.field: c.outcome
        for c in content_agreement(_one_pair(gold, draft), lexical_similarity).comparisons
    }
    assert got == {"identity": SAME, "form": SAME, "substrate": SAME}
    ca = content_agreement(_one_pair(gold, other), lexical_similarity)
    assert {c.field: c.outcome for c in ca.comparisons}["form"] == DISAGREE
