"""The search agent ranks with the servers' one tokeniser: the same stemmer and function words."""

from __future__ import annotations

from lakeboard.servers.relevance.tokens import FUNCTION_WORDS, stem
from lakeboard.servers.search_agent.passages import Passage
from lakeboard.servers.search_agent.passage_ranking import PassageRanker, TfidfMatrix, content_words, tokens


def passage(title: str, text: str) -> Passage:
    return Passage(source=f"docs/{title.lower().replace(' ', '_')}.md", title=title, text=text)


def test_content_words_are_never_dropped_as_stop_words():
    # "fire", "system" and "amount" say what a request is about; only function words are skipped.
    assert content_words("What does the fire danger system mean for the amount burned?") == [
        "fire", "danger", "system", "amount", "burned"]
    assert tokens("The fire systems") == [stem("fire"), stem("systems")]
    assert not set(tokens(" ".join(sorted(FUNCTION_WORDS))))


def test_the_passage_about_the_requested_subject_ranks_first():
    ranker = PassageRanker([
        passage("Danger rating", "How the danger rating is computed from observations."),
        passage("Fire danger rating", "How the danger rating is computed from observations."),
    ])
    (best, best_score), (_, other_score) = ranker.rank("fire danger rating")
    assert best.title == "Fire danger rating" and best_score > other_score


def test_the_weights_are_scikit_learns_tfidf_with_word_pairs():
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = ["Fire danger rating: how the danger rating is computed from daily observations.",
             "Rainfall totals per station, rainfall in millimetres; stations report daily.",
             "The the of and",  # function words only: a row of zeros
             "Danger danger danger, fire fire: burned area per year and fire counts per station."]
    ours = TfidfMatrix(texts)
    theirs = TfidfVectorizer(tokenizer=tokens, token_pattern=None, lowercase=False, sublinear_tf=True,
                             ngram_range=(1, 2))
    expected = theirs.fit_transform(texts)
    assert ours.features == list(theirs.get_feature_names_out())
    assert abs(ours.matrix - expected).max() < 1e-12
    request = "daily fire danger per station, and an unknown word"
    assert abs(ours.transform(request) - theirs.transform([request])).max() < 1e-12
    assert ours.transform("").nnz == 0 and ours.transform("").shape == (1, len(ours.features))


def test_passages_of_function_words_only_rank_nothing():
    ranker = PassageRanker([passage("a", "the of and"), passage("b", "to be or not")])
    assert ranker.scores("fire danger") == [0.0, 0.0] and ranker.rank("the") == []
