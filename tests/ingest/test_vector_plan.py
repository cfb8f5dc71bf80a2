import numpy as np
import pytest

from recall_engine.ingest.chunking import ChunkDraft
from recall_engine.ingest.vector_plan import VectorPlan
from recall_engine.testing import DeterministicEmbedder

ONE = ChunkDraft(text="Hi.", embed_text="Ann said: Hi.", lexical_text="Ann: Hi.")
TWO = ChunkDraft(
    text="I moved to Lyon. The rent is high there.",
    embed_text="Ann said: I moved to Lyon. The rent is high there.",
    lexical_text="Ann: I moved to Lyon. The rent is high there.",
    embed_sentences=("Ann said: I moved to Lyon.", "Ann said: The rent is high there."),
)


def test_whole_chunks_come_first_then_every_sentence_in_order():
    plan = VectorPlan.of([TWO, ONE, TWO])
    assert plan.texts == [
        TWO.embed_text,
        ONE.embed_text,
        TWO.embed_text,
        *TWO.embed_sentences,
        *TWO.embed_sentences,
    ]
    assert plan.sentence_total == 4
    vectors = DeterministicEmbedder().embed(plan.texts)
    chunks, sentences = plan.assemble(vectors)
    assert np.allclose(chunks, vectors[:3])
    assert np.allclose(sentences[0], vectors[3:5])
    assert sentences[1].shape == (0, vectors.shape[1])
    assert np.allclose(sentences[2], vectors[5:7])


def test_vectors_of_another_length_are_refused():
    plan = VectorPlan.of([TWO])
    with pytest.raises(ValueError, match="1 vectors for 3 texts"):
        plan.assemble(np.ones((1, 4), dtype=np.float32))
