"""Offline triage: does a request ask for general knowledge, or for data in the lake?

A small, general classifier built from the way requests are phrased, never from domain
words: knowledge cues ("what does X mean", "how is X computed", "formula", "definition")
against data cues ("which files", "dataset", "column", ".csv", time-bounded readings).
The search agent combines the result with how well its sources match (local backend) to
decide and to give a confidence on the same scale as the file agents' (0.3-0.9 for a good
match, low when it declines).
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from lakeboard.servers.time_vocabulary import GRANULARITY_WORDS, YEAR

_F = re.IGNORECASE  # every pattern ignores case

# (pattern, weight, label). Weights are relative: a strong cue ~1.0, a hint ~0.3-0.5.
KNOWLEDGE_CUES: list[tuple[re.Pattern[str], float, str]] = [
    (re.compile(r"\bwhat (?:does|do|did) .{1,80}? (?:mean|stand for|refer to|represent|measure|indicate)\b", _F), 1.2, "asks what a term means"),
    (re.compile(r"\b(?:meaning|definition|defined as|define|stands? for|acronym|abbreviation|terminology|glossary|the term)\b", _F), 1.0, "asks for a definition"),
    (re.compile(r"^\W*(?:what|who) (?:is|are) (?:an? |the )?(?!.*\b(?:of|in|for|per|by|each|every|at|on|from|during|between)\b)[\w.\-'/]+(?:\s+[\w.\-'/]+){0,3}\W*$", _F), 1.0, "asks what something is"),
    (re.compile(r"\bhow (?:is|are|was|were|do|does|did|should|would|can|to|you)\b.{0,80}?\b(?:comput|calculat|deriv|defin|measur|estimat|determin|interpret|convert|normali[sz]|aggregat|classif|scor|weight|rank|formulat|obtain|construct|count|tall|collect|assess|evaluat|adjust|correct|imput|round|truncat|averag|combin|handl|treat|report)\w*", _F), 1.2, "asks how something is computed"),
    (re.compile(r"\b(?:formula|formulas|formulae|equation|equations|algorithm|algorithms|methodology|methodologies|method|methods|procedure|technique|computation|calculation)\b", _F), 0.8, "asks for a method or formula"),
    (re.compile(r"\b(?:standard|standards|guideline|guidelines|convention|conventions|criteria|criterion|thresholds?|breakpoints?|categories|classification|scale|units? of|conversion factors?|rule|rules|regulation|regulations|specification)\b", _F), 0.5, "asks about a standard, scale or rule"),
    (re.compile(r"\b(?:explain|explanation|describe|background|overview|concept|theory|principle|principles|rationale|why)\b", _F), 0.6, "asks for an explanation"),
    (re.compile(r"\b(?:what (?:is|are|was|were)|who (?:is|are|was)|which (?:method|formula|algorithm|standard|unit|scale))\b", _F), 0.4, "asks a what-is question"),
    (re.compile(r"\b(?:difference between|differ from|compared to|versus|relationship between)\b", _F), 0.4, "asks how concepts relate"),
    (re.compile(r"\b(?:according to|general knowledge|domain knowledge|documentation|literature|reference|known as)\b", _F), 0.4, "asks for reference knowledge"),
]

DATA_CUES: list[tuple[re.Pattern[str], float, str]] = [
    (re.compile(r"\b(?:which|what|find|locate|list|identify|load|read|open|get|give me|show)\b(?:\s+\w+){0,3}?\s+(?:files?|datasets?|data ?sets?|tables?|columns?|sheets?|spreadsheets?|records?|rows?)\b", _F), 1.6, "asks to find data files or fields"),
    (re.compile(r"\b(?:files?|datasets?|data ?sets?|tables?|columns?|spreadsheets?|worksheets?|sheets?|rows?|records?|database|data lake|lake|directory|folder)\b", _F), 0.9, "mentions files, tables or columns"),
    (re.compile(r"\.(?:csv|tsv|xlsx?|json|jsonl|parquet|feather|txt|dat|nc|h5|hdf5?|cdf|gpkg|shp|geojson|sqlite|db|xml)\b", _F), 1.5, "names a data file"),
    (re.compile(r"\b(?:csv|tsv|excel|parquet|netcdf|shapefile|geopackage|json file)\b", _F), 1.0, "names a data format"),
    (re.compile(r"\b(?:contain|contains|containing|stored|located|available in|present in)\b", _F), 0.5, "asks where something is stored"),
    (re.compile(r"\b(?:data|readings|measurements|observations|values|counts|entries|samples|logs|time series|timeseries)\b", _F), 0.5, "asks for data values"),
    (re.compile(rf"\b(?:{'|'.join(GRANULARITY_WORDS)})\b", _F), 0.3, "asks for periodic data"),
    (re.compile(rf"\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\s+{YEAR}\b|\b{YEAR}\b", _F), 0.3, "names a date range"),
    (re.compile(r"\b(?:load|filter|merge|join|aggregate|group by|sum of|average of|count of|total)\b", _F), 0.3, "asks for a data operation"),
    (re.compile(r"\b(?:each|every|per|by)\s+(?!the\b|a\b|an\b)\w+", _F), 0.4, "asks for values per entity"),
]


class Triage(BaseModel):
    """How a request is phrased: knowledge cues against data cues."""

    knowledge: float
    data: float
    knowledge_cues: list[str]
    data_cues: list[str]

    @property
    def margin(self) -> float:
        return self.knowledge - self.data

    @property
    def asks_knowledge(self) -> bool:
        """Knowledge cues present and not outweighed by data cues."""
        return self.knowledge >= 0.5 and self.knowledge > self.data

    @property
    def asks_data(self) -> bool:
        return self.data >= 0.9 and self.data >= self.knowledge

    def strength(self) -> float:
        """0..1: how clearly the request asks for knowledge rather than data."""
        return max(0.0, min(1.0, self.margin / 2.0))


def _score(text: str, cues: list[tuple[re.Pattern[str], float, str]]) -> tuple[float, list[str]]:
    total, labels = 0.0, []
    for pattern, weight, label in cues:
        if pattern.search(text):
            total += weight
            labels.append(label)
    return total, labels


def triage(request: str) -> Triage:
    """Score the phrasing of a request (its reason is not used: it often mentions data)."""
    knowledge, knowledge_labels = _score(request, KNOWLEDGE_CUES)
    data, data_labels = _score(request, DATA_CUES)
    return Triage(knowledge=knowledge, data=data, knowledge_cues=knowledge_labels, data_cues=data_labels)
