"""Which request words are evidence of content, and which only frame it.

"monthly", "data", "report" or a year say how or when, not what: a file that matches only
such words holds nothing the request asks for. Those words still help rank files that
do match its content (a daily table over a yearly one), but alone they are no reason to
volunteer.
"""

from __future__ import annotations

from lakeboard.servers.relevance.constraints import Constraints
from lakeboard.servers.relevance.tokens import stem
from lakeboard.servers.time_vocabulary import GRANULARITY_WORDS

# Words that describe the shape, period or kind of data in any lake; with them, the words for
# how often it comes (daily, monthly ...).
_FRAMING = """
    seasonal data dataset datasets database file files table tables sheet spreadsheet record records row rows
    column columns field fields information info statistic statistics stats figure figures
    list lists summary summaries report reports overview detail details series
"""
FRAMING_TERMS = frozenset(stem(w) for w in (*GRANULARITY_WORDS, *_FRAMING.split()))


def content_terms(weights: dict[str, float], constraints: Constraints, request: str) -> set[str]:
    """The request's terms that name what it needs: not framing words, not its times."""
    from lakeboard.servers.relevance.tokens import query_terms

    timeless = set(query_terms(constraints.without_time(request)))
    return {t for t in weights if t in timeless and t not in FRAMING_TERMS}
