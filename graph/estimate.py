"""What a Claude draft will cost, told before the first paid call.

Why an estimate rather than a number after the fact: a default draft makes dozens of
conversations, each a tool loop that re-sends its growing transcript every turn.  The
analyst should see the order of magnitude, and the default ``--max-cost`` cap, before
any money is spent (``drafter draft --estimate`` prints it and stops).

The model of one conversation with ``T`` turns: the cached prefix (system prompt, tool
definitions, shared context) of ``P`` tokens is read on every turn; the opening ``O``
(for a record or a repair, the run's ``record_context_bytes``, which a smaller
``--context-window`` shrinks) and each turn's tool answer ``R`` are written to the
cache once and read on every later turn (the planner keeps only its newest answer whole
and re-sends older ones folded to a line); each turn writes ``A`` output tokens and the
submission ``S``.  The low end assumes half the plan size, conversations that use half
their budget and small tool answers; the high end the full plan, every budget spent
with page-sized answers and a repair round for a third of the records.  Prices come from
:data:`drafter.price_table.PRICES` (exact model IDs) or the analyst's ``--price-in``/``--price-out``
(:mod:`graph.pricing`); a model without a price gets its range in tokens only, never
an invented dollar figure.
"""

from __future__ import annotations

from dataclasses import dataclass

from drafter import defaults
from graph.costs import Price, PriceSpec, price_for

CHARS_PER_TOKEN = 3.5
TOOL_DEFS_TOKENS = 2_500  # the seven investigation tools and a submit schema
TURN_OUTPUT = 150  # the model's words and tool call per investigation turn


#: Tokens of a folded tool answer (graph.proposers.agent.fold: what was read, how to
#: read it again; about 200 characters).
FOLDED_ANSWER = 60


@dataclass(frozen=True)
class Conversation:
    turns: int  # paid calls, the submission included
    opening: int  # tokens of the task and its repository data
    answer: int  # tokens of one tool answer
    submit: int  # output tokens of the submission
    #: Tokens an older answer keeps once folded (the planner keeps only its newest
    #: answer whole); None: every answer is re-sent whole.
    folded: int | None = None

    def sent(self, turn: int) -> int:
        """Tokens after the cached prefix in request ``turn`` (0-based)."""
        if self.folded is None or turn < 2:
            return self.opening + turn * (self.answer + TURN_OUTPUT)
        return self.opening + turn * TURN_OUTPUT + self.answer + (turn - 1) * self.folded


@dataclass
class Tokens:
    input: float = 0.0
    output: float = 0.0
    cache_write: float = 0.0
    cache_read: float = 0.0

    def add(self, prefix: int, c: Conversation, count: float) -> None:
        t = c.turns
        sent = sum(c.sent(i) for i in range(t))
        # Each turn writes what it adds once: the opening, then every answer and the
        # model's words; a folded conversation also writes each answer's folded line.
        added = c.answer + TURN_OUTPUT + (c.folded or 0)
        written = c.opening + (t - 1) * added
        self.cache_read += count * (t * prefix + sent - c.opening)
        self.cache_write += count * written
        self.input += count * t * 50  # the uncached tail of each turn
        self.output += count * ((t - 1) * TURN_OUTPUT + c.submit)

    def cost(self, p: Price) -> float:
        """US dollars of these tokens at price ``p``."""
        return (
            self.input * p.input
            + self.output * p.output
            + self.cache_write * p.cache_write
            + self.cache_read * p.cache_read
        ) / 1_000_000

    @property
    def total(self) -> int:
        return int(self.input + self.output + self.cache_write + self.cache_read)


@dataclass(frozen=True)
class Estimate:
    model: str
    records: tuple[int, int]
    low: Tokens
    high: Tokens
    #: None: the model has no known price, so the estimate is in tokens only.
    price: Price | None = None

    @property
    def usd(self) -> tuple[float, float] | None:
        if self.price is None:
            return None
        return self.low.cost(self.price), self.high.cost(self.price)

    def line(self, max_cost: float | None, max_tokens: int | None = None) -> str:
        span = f"{self.low.total / 1e6:.1f}–{self.high.total / 1e6:.1f} M tokens"
        head = f"estimate for {self.records[0]}–{self.records[1]} records with {self.model}: "
        cap = f"; stops at --max-cost ${max_cost:.2f}" if max_cost is not None else ""
        if max_tokens is not None:
            cap += f"; stops at --max-tokens-total {max_tokens:,}"
        usd = self.usd
        if usd is None:
            return (
                f"{head}{span} (the prefix is re-sent every turn); no USD figure: "
                f"{self.model} has no known price (--price-in/--price-out give one){cap}"
            )
        lo, hi = usd
        usd_span = f"${lo:.2f}–${hi:.2f}"
        return f"{head}{span} (mostly cache reads), {usd_span}{cap}\n{priced_at(self.price)}"


def priced_at(price: Price | None) -> str:
    """The line under an estimate: the per-million prices it used and their source."""
    if price is None:
        return ""
    return f"priced at {price.per_million()} (source: {price.source or 'unknown'})"


def estimate(
    model: str,
    shared_chars: int,
    max_records: int,
    budgets: object,
    repair_rounds: int = defaults.REPAIR_ROUNDS,
    price: PriceSpec = "table",
    page_tokens: int | None = None,
    record_context_bytes: int = defaults.DEFAULT_RECORD_CONTEXT_BYTES,
) -> Estimate:
    """Token and USD range of a draft (see the module docstring for the model).

    ``page_tokens`` caps a tool answer (a smaller context window reads smaller pages);
    ``record_context_bytes`` is the run's bound on a record's opening (a smaller window
    shrinks it too)."""
    prefix = int(shared_chars / CHARS_PER_TOKEN) + TOOL_DEFS_TOKENS + 1_200
    opening = record_opening_tokens(record_context_bytes)
    b_plan, b_rec, b_rep, b_acc = (
        int(getattr(budgets, n)) for n in ("plan", "record", "repair", "account")
    )
    lo_n, hi_n = max(1, max_records // 2), max_records
    low, high = Tokens(), Tokens()
    for tok, n, frac, answer, rep in (
        (low, lo_n, 0.5, 1_500, 0.0),
        (high, hi_n, 1.0, 5_000, 1 / 3),
    ):
        answer = min(answer, page_tokens) if page_tokens else answer
        plan = Conversation(_turns(b_plan, frac), 5_000, answer, 120 * n, FOLDED_ANSWER)
        tok.add(prefix, plan, 1)
        tok.add(prefix, Conversation(_turns(b_rec, frac), opening, answer, 1_500), n)
        if repair_rounds:
            tok.add(prefix, Conversation(_turns(b_rep, frac), opening, answer, 1_500), n * rep)
        tok.add(prefix, Conversation(_turns(b_acc, frac), 400 * n, answer, 3_000), 1)
    return Estimate(model, (lo_n, hi_n), low, high, price_for(model) if price == "table" else price)


def record_opening_tokens(record_context_bytes: int) -> int:
    """Tokens of a record's (or a repair's) opening: its task, notes, findings, hits and
    opening pages are built within ``record_context_bytes`` together
    (graph.proposers.agent.context; a repair's rejected quotes and nearest passages
    share the same budget), counted at the estimate's :data:`CHARS_PER_TOKEN` (the
    text is nearly all ASCII, so a byte is a character)."""
    return int(record_context_bytes / CHARS_PER_TOKEN)


def _turns(budget: int, share: float) -> int:
    """Paid calls of a conversation that uses ``share`` of its tool budget, then submits."""
    return max(1, int(budget * share)) + 1
