"""Text similarity between records: label and body, gold against draft.

Two backends behind one signature, ``(gold_texts, draft_texts) -> matrix``:

* ``embed`` (default): cosine similarity of the project's local sentence embeddings
  (``retrieval.embeddings.embed``, MiniLM on onnxruntime).  Paraphrase-aware, which
  is what comparing an analyst's prose with a machine draft needs.
* ``lexical``: TF-IDF cosine over word tokens.  No model, fully transparent; useful in
  tests that compute expected values by hand and to compare against the embedding
  score when a number looks wrong.

Raw MiniLM cosines between unrelated texts of the same domain sit around 0.1-0.3, not
0; :func:`rescale` maps that floor to 0 so that the combined score (text plus witness
overlap) means roughly the same thing for either backend.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from drafter.errors import BadInput
from drafter.model import Record

TextSimilarity = Callable[[Sequence[str], Sequence[str]], np.ndarray]

#: Cosine at or below which two embedded texts are treated as unrelated.
EMBED_FLOOR = 0.2

_TOKEN = re.compile(r"[A-Za-z0-9_]{2,}")


#: Characters of body prose compared after the label (see :func:`record_text`).
LEAD_CHARS = 400


def record_text(rec: Record) -> str:
    """What a record is about: its label and the opening of its body.

    The report format puts a record's identity up front (label, then the lead fields:
    "Source-native identity", "Endpoints/progression", "Claimed operation",
    "Consumer"); later paragraphs argue about it.  Comparing whole bodies let long,
    similar-sounding argument outweigh identity and paired the wrong records on real
    drafts, so only the opening is compared.
    """
    return f"{rec.label}\n{rec.body_text()[:LEAD_CHARS]}".strip()


def rescale(cos: np.ndarray, floor: float) -> np.ndarray:
    """Map cosines in [floor, 1] to [0, 1], clipping below the floor."""
    return np.clip((cos - floor) / (1.0 - floor), 0.0, 1.0)


def lexical_similarity(gold: Sequence[str], draft: Sequence[str]) -> np.ndarray:
    """TF-IDF cosine; IDF over both sides so words every record uses weigh little."""
    docs = [Counter(t.lower() for t in _TOKEN.findall(s)) for s in (*gold, *draft)]
    n = len(docs)
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())
    vocab = {w: i for i, w in enumerate(sorted(df))}
    mat = np.zeros((n, max(len(vocab), 1)), dtype=np.float64)
    for row, d in enumerate(docs):
        for w, c in d.items():
            mat[row, vocab[w]] = (1.0 + math.log(c)) * (math.log((1 + n) / (1 + df[w])) + 1.0)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    mat = np.divide(mat, norms, out=np.zeros_like(mat), where=norms > 0)
    g, d = mat[: len(gold)], mat[len(gold) :]
    sims: np.ndarray = np.clip(g @ d.T, 0.0, 1.0)  # numpy types ``@`` of 2-D arrays as Any
    return sims


#: Embeddings already computed in this process, by text.  One evaluation embeds the
#: same gold texts for the draft, each baseline and the support score; a suite or a
#: test run does so for every item.  The model is deterministic, so reuse is exact.
_EMBEDDED: dict[str, np.ndarray] = {}
_EMBEDDED_MAX = 50_000


def embed_cached(texts: Sequence[str]) -> np.ndarray:
    """Embeddings of ``texts`` (rows in order), computing only the unseen ones."""
    from retrieval.embeddings import embed  # local model; imported only when used

    missing = sorted({t for t in texts if t not in _EMBEDDED})
    if missing:
        if len(_EMBEDDED) + len(missing) > _EMBEDDED_MAX:
            _EMBEDDED.clear()
        for t, v in zip(missing, embed(missing), strict=True):
            _EMBEDDED[t] = np.asarray(v, dtype=np.float64)
    return np.array([_EMBEDDED[t] for t in texts])


def embedding_similarity(gold: Sequence[str], draft: Sequence[str]) -> np.ndarray:
    """Rescaled cosine of the local sentence embeddings (see module docstring)."""
    if not gold or not draft:
        return np.zeros((len(gold), len(draft)))
    vecs = embed_cached([*gold, *draft])
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = np.divide(vecs, norms, out=np.zeros_like(vecs), where=norms > 0)
    g, d = vecs[: len(gold)], vecs[len(gold) :]
    return rescale(g @ d.T, EMBED_FLOOR)


BACKENDS: dict[str, TextSimilarity] = {
    "embed": embedding_similarity,
    "lexical": lexical_similarity,
}


def backend(name: str) -> TextSimilarity:
    try:
        return BACKENDS[name]
    except KeyError:
        raise BadInput(
            f"unknown similarity backend {name!r} (choose {', '.join(BACKENDS)})"
        ) from None


#: A code token: a dotted/slashed name, snake_case, CamelCase or a file name.
_CODE = re.compile(
    r"[A-Za-z_][A-Za-z0-9_/]*\.[A-Za-z0-9_.]*[A-Za-z0-9_]"  # dotted names, file paths
    r"|[A-Za-z0-9]+_[A-Za-z0-9_]+"  # snake_case and CONSTANT_NAMES
    r"|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"  # camelCase, CamelCase
)


def code_tokens(rec: Record) -> list[str]:
    """Names a record mentions or quotes: what two reports about one thing share
    whatever their prose (file paths, functions, constants), lower-cased, with the
    paths of its witnesses counted too."""
    texts = [rec.label, rec.body_text(), *(w.quote for w in rec.witnesses)]
    tokens = [t.lower().rstrip(".") for s in texts for t in _CODE.findall(s)]
    tokens += [w.path.lower() for w in rec.witnesses]
    return tokens


def code_similarity(gold: Sequence[Record], draft: Sequence[Record]) -> np.ndarray:
    """TF-IDF cosine over the records' code tokens (see :func:`code_tokens`)."""

    def joined(r: Record) -> str:
        return " ".join(t.replace(".", "_").replace("/", "_") for t in code_tokens(r))

    return lexical_similarity([joined(r) for r in gold], [joined(r) for r in draft])
