"""Turning requests, paths, column names, values and documents into comparable terms.

The one tokeniser of the servers: the file agents' relevance engine and the search
agent's ranking both split, filter and stem words here.

Identifiers in a lake are written every which way (`stationMaxTempC`, `Max_Temp`,
`max-temp.csv`); `words` splits them, lower-cased, and `stem` stems them, so that a
request's "max temperatures" meets a column called `MaxTemperature`. Prose names things
that must stay whole ("PM2.5", "NO2"): `prose_words` keeps them.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)

# Function words, then words that describe the *analysis* rather than the data: they say
# nothing about which file holds the answer ("round to 4 decimal places").
_FUNCTION_WORD_TEXT = """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each either else even ever every
    few for from further had has have having he her here hers him his how i if in into is it its itself
    just let like may me might more most much must my neither no nor not now of off on once only or other
    our ours out over own per same shall she should since so some such than that the their theirs them
    then there these they this those though through thus to too under until up upon us very via was we
    were what whatever when where whether which while who whom whose why will with within without would
    yet you your yours
"""
_ANALYSIS_WORDS = """
    answer answers assume assuming average calculate calculated compute computed consider considering
    decimal decimals determine digit digits exactly explanation find give given greatest highest
    inclusive least less lowest many maximum mean median minimum needed number numbers only percent
    percentage place places please proportion provide question ratio round rounded rounding
    show smallest largest sum tell total value values yes true false whole vs versus
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORD_TEXT.split())
STOPWORDS = FUNCTION_WORDS | frozenset(_ANALYSIS_WORDS.split())

_stemmer = snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    return _stemmer.stemWord(word)


_PLURAL_ACRONYM = re.compile(r"([A-Z]{2,})s\b")


def words(text: str) -> list[str]:
    """Lower-cased words of `text`, identifiers split (camelCase, snake_case, digits)."""
    text = _PLURAL_ACRONYM.sub(r"\1", text)  # "CSVs", "IDs": one word, not "CS Vs"
    return [w.lower() for w in _WORD.findall(_CAMEL.sub(" ", text))]


_PROSE_WORD = re.compile(r"\b[^\W_][\w.]*[^\W_]\b")


def prose_words(text: str) -> list[str]:
    """Lower-cased words of 2+ characters of running text; "pm2.5", "no2" and "x_y" stay whole."""
    return _PROSE_WORD.findall(text.lower())


def _content_words(text: str) -> list[str]:
    return [
        w
        for w in words(text)
        # years matter; other bare numbers are noise
        if w not in STOPWORDS and len(w) >= 2 and not (w.isdigit() and len(w) != 4)
    ]


def terms(text: str) -> list[str]:
    """Stemmed content terms of `text`, in order (duplicates kept)."""
    return [stem(w) for w in _content_words(text)]


def query_terms(text: str) -> dict[str, str]:
    """Stemmed content terms of a request, each with the first word it came from."""
    out: dict[str, str] = {}
    for w in _content_words(text):
        out.setdefault(stem(w), w)
    return out


_QUOTED = re.compile(r"[\"\u201c\u201d']([^\"\u201c\u201d']{2,80})[\"\u201c\u201d']")


def quoted_phrases(text: str) -> list[list[str]]:
    """Stemmed words (stopwords kept) of each quoted phrase: quotes name a column or value verbatim."""
    out = []
    for m in _QUOTED.finditer(text):
        # an apostrophe inside a word ("don't") is not a quote
        if m.start() > 0 and text[m.start() - 1].isalnum():
            continue
        ws = [stem(w) for w in words(m.group(1))]
        if ws:
            out.append(ws)
    return out
