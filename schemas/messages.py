"""Blackboard messages: requests the main agent posts, and what helpers answer."""

from __future__ import annotations

import ast
import keyword
import math
import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from lakeboard.schemas.profiles import LoaderCheck, TableShape


class LakeSimilarity(BaseModel):
    """A request's embeddings against every file of one lake: the whole request's best similarity,
    and how each file's nearest similarity (to the whole or to the request's sentence nearest it)
    spreads: a request that one file stands out for differs from one every file meets alike.
    Strict: it also comes from a caller's `_meta`, where a string or a bool is no similarity.
    Frozen, so hashable: a file agent keys the rankings it keeps by it."""

    model_config = ConfigDict(strict=True, allow_inf_nan=False, frozen=True)

    best: float = Field(ge=-1.001, le=1.001, description="the whole request's best similarity to a file")
    nearest: float = Field(ge=-1.001, le=1.001, description="the best of the files' nearest similarities")
    mean: float = Field(ge=-1.001, le=1.001, description="the mean of the files' nearest similarities")
    std: float = Field(ge=0.0, le=2.0, description="their standard deviation")
    files: int = Field(ge=1, description="how many files they were found over")

    @property
    def standing(self) -> float:
        """How far the nearest file stands above the lake's files, in standard deviations, beyond
        what the best of that many files reaches by chance (about sqrt(2 ln n) for n of them).

        Without that allowance the standing grows with the lake: a gate fitted on lakes of 4 to
        132 files declined half of one lake's questions once the four real lakes were pooled
        into one of 220 (benchmarks/fit_relevance.py)."""
        if self.std <= 1e-6:
            return 0.0
        return (self.nearest - self.mean) / self.std - math.sqrt(2 * math.log(max(self.files, 2)))

    @classmethod
    def of(cls, similarities) -> LakeSimilarity:
        """From one request's similarities to a lake's files (a numpy array: one row for the whole
        request, then one per sentence, or one row alone); int8 codes can overshoot a cosine by a
        hair, hence the clipping."""
        rows = similarities.reshape(-1, similarities.shape[-1])
        nearest = rows.max(0)
        best, top, mean = (min(max(float(v), -1.0), 1.0) for v in (rows[0].max(), nearest.max(), nearest.mean()))
        return cls(best=best, nearest=top, mean=mean, std=min(float(nearest.std()), 2.0), files=rows.shape[1])


class BlackboardRequest(BaseModel):
    """What the main agent posts (the paper's request_help action)."""

    request: str = Field(min_length=1, description="what is needed, in plain words")
    reason: str = Field("", description="why it is needed (context for helpers)")
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    embedding: list[list[float]] | None = Field(
        default=None, exclude=True, repr=False,
        description="the request's sentence embeddings, made once by the host (common/request_embedding.py): "
        "the whole request's, then its sentences' where it has several; they travel in a call's _meta, never in traces",
    )
    lake_similarity: dict[str, LakeSimilarity] | None = Field(
        default=None, exclude=True, repr=False,
        description="per lake search index (its folder), the embedding's best similarity to any file of that "
        "lake and their spread, found once by the host; it travels with the embedding",
    )

    def tool_arguments(self) -> dict[str, str]:
        """The arguments of a helper's `can_help` and `respond`: the request as a plain string, the reason as an extra."""
        return {"request": self.request, "reason": self.reason}


class FileMatch(BaseModel):
    """One file a file agent judged relevant, with evidence the host can rank across agents."""

    path: str = Field(description="lake-relative path")
    score: float = Field(ge=0.0, le=1.0)
    matched_terms: list[str] = Field(default_factory=list, description="request terms this file covers")
    role: Literal["data", "dictionary", "companion", "template"] = Field(
        "data", description="template: it holds the form of an answer (keys, blanks, placeholders), not data")
    companions: list[str] = Field(
        default_factory=list, description="files to read with this one, e.g. its data dictionary"
    )
    group: str | None = Field(
        None, description="family of interchangeable files (same folder and columns, or a dated series)"
    )
    copies: list[str] = Field(default_factory=list, description="other files of the lake with the same bytes")


class HelpDecision(BaseModel):
    """A helper's own decision on whether it can help (tool can_help)."""

    agent_name: str
    can_help: bool
    reason: str
    confidence: float = Field(ge=0.0, le=1.0, description="comparable across helpers: the host ranks volunteers by it")
    closest: list[FileMatch] = Field(
        default_factory=list, exclude_if=lambda v: not v,  # left out of a volunteer's decision and the search agent's
        description="a file agent that declines: its best files that match some of the request's words, below "
        "its threshold; the host shows them, marked so, when no helper volunteers",
    )


class Loader(BaseModel):
    """Code that loads lake files: one function of a file's path that returns its data.

    The function's imports are listed apart, so a program that holds several loaders
    imports each module once. Lake text (names, notes) appears in `source` only as escaped
    literals or one-line comments.
    """

    paths: list[str] = Field(min_length=1, description="the lake-relative files it loads, one call per file")
    family: str | None = Field(None, description="the family of same-layout files these paths belong to, if any")
    summary: str = Field("", description="what one file holds, in one line (shown as a comment)")
    function: str = Field(description="the function's name, load_...")
    imports: list[str] = Field(default_factory=list, description="import statements, one module each")
    source: str = Field(description="`def <function>(path): ... return data`; path is a pathlib.Path")
    check: LoaderCheck | None = Field(None, description="the loader run on its (first) file at index time")
    expects: list[TableShape] = Field(
        default_factory=list, description="the tables its (first) file should load as, from the profile"
    )

    @field_validator("function")
    @classmethod
    def _a_loader_name(cls, name: str) -> str:
        if not (name.startswith("load_") and name.isidentifier() and name.isascii() and not keyword.iskeyword(name)):
            raise ValueError("a loader's function is named load_<ascii letters, digits, underscores>")
        return name

    @field_validator("imports")
    @classmethod
    def _single_imports(cls, statements: list[str]) -> list[str]:
        for statement in statements:
            try:
                nodes = ast.parse(statement).body
            except (SyntaxError, ValueError) as exc:  # ValueError: a NUL byte
                raise ValueError(f"not an import statement: {statement!r}") from exc
            if len(nodes) != 1 or not isinstance(nodes[0], (ast.Import, ast.ImportFrom)) or len(nodes[0].names) != 1:
                raise ValueError(f"not an import of one name: {statement!r}")
        return statements

    @model_validator(mode="after")
    def _one_function_of_a_path(self) -> Loader:
        try:
            nodes = ast.parse(self.source).body
        except (SyntaxError, ValueError) as exc:  # ValueError: a NUL byte
            raise ValueError(f"the source of {self.function} does not parse: {exc}") from exc
        ok = (len(nodes) == 1 and isinstance(nodes[0], ast.FunctionDef) and nodes[0].name == self.function
              and [a.arg for a in nodes[0].args.args] == ["path"] and self.source.startswith(f"def {self.function}(path):"))
        if not ok:
            raise ValueError(f"the source must be one function `def {self.function}(path):` and nothing else")
        return self


class FileAgentResponse(BaseModel):
    """The paper's file-agent response fields, plus ranked evidence."""

    agent_name: str
    can_help: bool
    reason: str
    files: list[str] = Field(default_factory=list, description="lake-relative paths, most relevant first")
    code: str = Field("", description="the loaders rendered as one program, for a person or a model to read")
    loaders: list[Loader] = Field(default_factory=list, description="code that loads the files, as functions")
    data_explanation: str = ""
    data_sample: str = ""
    libraries: list[str] = Field(default_factory=list)
    necessary_steps: list[str] = Field(default_factory=list)
    confidence: float = Field(0.0, ge=0.0, le=1.0)
    matches: list[FileMatch] = Field(default_factory=list)
    term_weights: dict[str, float] = Field(
        default_factory=dict,
        description="the request's terms and their lake-wide weights (idf): evidence of what the scores weigh",
    )
    dense: bool = Field(True, description="whether the scores weigh a sentence-embedding similarity too")


class SearchAgentResponse(BaseModel):
    agent_name: str
    can_help: bool
    reason: str
    answer: str = ""
    sources: list[str] = Field(default_factory=list, description="URLs or local document paths")
    queries: list[str] = Field(default_factory=list)
    confidence: float = Field(0.0, ge=0.0, le=1.0)
