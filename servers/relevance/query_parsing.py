"""Parse a request once into a typed `Query`: terms, name parts, ids, quoted phrases, period.

Every relevance step (the file agent's features, the host's choice of files) reads the
`Query`; none of them parses the request's text again.
"""

from __future__ import annotations

import re

from lakeboard.schemas.query import Query, QueryPeriod
from lakeboard.servers.relevance.constraints import parse_constraints
from lakeboard.common.request_text import data_part, data_sentences
from lakeboard.servers.relevance.tokens import FUNCTION_WORDS, STOPWORDS, query_terms, quoted_phrases, stem, words

_CODE = re.compile(r"(?<![\w.])([A-Za-z]*\d[\w-]*)(?![\w])")


def name_parts(text: str) -> list[str]:
    """Words as names are split (camelCase, `_`, digits), stemmed; numbers kept, function words dropped."""
    return [stem(w) for w in words(text) if w not in FUNCTION_WORDS]


def _joined_pairs(text: str) -> list[str]:
    """Adjacent words written together, as names often do ('Sentinel B' -> 'sentinelb')."""
    ws = [w for w in words(text) if w not in FUNCTION_WORDS]
    return [stem(a + b) for a, b in zip(ws, ws[1:])]


def _ids(text: str, numbers: list[str], times: list[tuple[int, int]]) -> list[str]:
    """Numbers that are not years or dates, and codes that mix letters and digits ('B12', '80412a')."""
    timed = set()
    for a, b in times:
        timed.update(range(a, b))
    out = [n.replace(",", "") for n in numbers if len(n.replace(",", "")) >= 2]
    for m in _CODE.finditer(text):
        if m.start() in timed or m.group(1).isdigit():
            continue
        out.append(m.group(1).lower())
    return list(dict.fromkeys(out))


def _named_phrases(data: str) -> list[str]:
    """Quoted phrases that can name a column or value: 'Yes', 'No' or '5' in quotes name none."""
    out = []
    for words_ in quoted_phrases(data):
        if any(w not in STOPWORDS and not w.isdigit() and len(w) > 1 for w in words_):
            out.append(" ".join(words_))
    return list(dict.fromkeys(out))


def parse_query(request: str) -> Query:
    constraints = parse_constraints(request)
    data = data_part(request)
    timed = query_terms(" ".join(request[a:b] for a, b in constraints.time_spans))
    untimed = query_terms(constraints.without_time(request))
    # month and season words are matched against time coverage, not text (a "March" in a
    # footnote is no evidence); years stay: they tell apart tables of one subject
    terms = {t: w for t, w in query_terms(data).items() if t not in timed or t in untimed or w.isdigit()}
    parts = list(dict.fromkeys(name_parts(data) + _joined_pairs(data)))
    ids = _ids(data, constraints.numbers, constraints.time_spans)
    # an id is a content term: rare in a lake, it points at the file named or filled with it
    terms.update({stem(i): i for i in ids if stem(i) not in terms})
    return Query(
        text=request,
        data_text=data,
        sentences=data_sentences(data),
        terms=terms,
        name_parts=parts,
        ids=ids,
        phrases=_named_phrases(data),
        periods=[QueryPeriod(start=p.start, end=p.end, text=p.text) for p in constraints.periods],
        months=sorted(constraints.months),
    )
