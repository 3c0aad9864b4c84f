"""The search agent ranks with the servers' one tokeniser: the same stemmer and function words."""

from __future__ import annotations

from lakeboard.servers.relevance.tokens import FUNCTION_WORDS, stem
from lakeboard.servers.search_agent.passages import Passage
from lakeboard.servers.search_agent.passage_ranking import PassageRanker, content_words, tokens


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
