"""What the offline phase learns about one file of the lake.

A profile carries everything needed to (a) judge whether the file is relevant to a
request and (b) generate code that loads it correctly, without opening the file again.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, SerializationInfo, field_serializer, field_validator

from lakeboard.schemas.storage import is_stored

FileStatus = Literal["ok", "empty", "unreadable", "too_large", "skipped"]
FileKind = Literal["table", "document", "array", "geo", "image", "structured", "binary", "unknown"]
# Rows a reader types and profiles: the first ones and a spread of the rest; a column's statistics
# (n_unique, null_fraction, ...) are of those rows. Profiling time grows with it; 200 keep nearly
# every value of category-like columns on the evaluation lakes.
STATS_ROWS = 200
# reader options keyed by column: their keys are the column labels pandas gives
_PER_COLUMN_OPTIONS = ("na_values", "dtype", "fill_values", "converters")


class ColumnProfile(BaseModel):
    name: str
    dtype: str = Field(description="pandas dtype as read from the sample, e.g. int64, float64, object")
    examples: list[str] = Field(default_factory=list, description="a few distinct non-null values")
    top_values: list[str] = Field(
        default_factory=list, description="most frequent values of a categorical column (else empty)"
    )
    n_unique: int | None = Field(None, description="distinct non-null values among the rows profiled (at most STATS_ROWS)")
    null_fraction: float | None = Field(None, description="the share of the rows profiled that are empty")
    minimum: str | None = Field(None, description="smallest value seen, for numeric and date columns")
    maximum: str | None = Field(None, description="largest value seen, for numeric and date columns")


class TableProfile(BaseModel):
    """One table inside a file: a CSV, a sheet, an HTML table, a layer, a JSON record list."""

    name: str | None = Field(None, description="sheet, layer, table index or JSON key; None for single-table files")
    header_row: int | None = Field(
        None, description="0-based line/row index of the header; rows before it are preamble (skip them)"
    )
    delimiter: str | None = None
    columns: list[ColumnProfile] = Field(default_factory=list)
    n_rows: int | None = Field(None, description="data rows (exact, or an estimate when n_rows_exact is False)")
    n_rows_exact: bool = True
    sample_rows: list[dict[str, Any]] = Field(default_factory=list, description="top rows as records (<= 20)")
    notes: list[str] = Field(
        default_factory=list, description="preamble/title lines above the header and footnotes below the data"
    )
    title: str | None = Field(None, description="the line above the header that names the table, if there is one")
    options: dict[str, Any] = Field(
        default_factory=dict, description="reader options needed to load this table (e.g. skiprows, sep, sheet_name)"
    )
    drop_blank_rows: bool = Field(
        False, description="drop all-empty rows after reading (blank separator rows inside the table)"
    )

    # Records repeat every column name in every row, and a column's values are alike (dates in
    # order, numbers of one format): in the profile cache (context=STORED) as {column: [values]},
    # the compressed profiles of the 50k-file lake of bench_scale.py took 40 bytes less each
    # (374 -> 334). Only rows that share one list of keys are stored so: they come back exactly.
    @field_serializer("sample_rows")
    def _rows_by_column(self, rows: list[dict[str, Any]], info: SerializationInfo) -> Any:
        if not is_stored(info) or not rows or not rows[0]:
            return rows
        keys = list(rows[0])
        if any(list(r) != keys for r in rows):
            return rows
        return {k: [r[k] for r in rows] for k in keys}

    @field_validator("options", mode="after")
    @classmethod
    def _positional_keys(cls, options: dict[str, Any]) -> dict[str, Any]:
        """A table read without names (header=None) has columns 0, 1, 2 …: the per-column options
        keyed by them come back from JSON keyed "0", "1", "2", which pandas matches to no column
        (a marker then stays in a column that loads as text)."""
        if options.get("header", 0) is not None or "names" in options:
            return options
        for key in _PER_COLUMN_OPTIONS:
            value = options.get(key)
            if isinstance(value, dict) and any(isinstance(k, str) and k.isdigit() for k in value):
                options[key] = {int(k) if isinstance(k, str) and k.isdigit() else k: v for k, v in value.items()}
        return options

    @field_validator("sample_rows", mode="before")
    @classmethod
    def _rows_from_columns(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        columns = list(value.values())
        if not all(isinstance(c, list) and len(c) == len(columns[0]) for c in columns):
            raise ValueError("sample rows stored by column need one list of values per column, all of one length")
        return [dict(zip(value, row)) for row in zip(*columns)]


# the attributes that say what an array holds and its units, as NetCDF, HDF5, CDF and FITS files name them
ARRAY_DESCRIPTIONS = ("long_name", "standard_name", "description", "CATDESC", "FIELDNAM", "LABLAXIS")
ARRAY_UNITS = ("units", "UNITS", "BUNIT")


class ArrayProfile(BaseModel):
    name: str
    shape: list[int]
    dtype: str
    sample: list[Any] = Field(default_factory=list)
    attributes: dict[str, str] = Field(
        default_factory=dict, description="per-array metadata, e.g. units and description of a CDF variable"
    )

    @property
    def descriptions(self) -> list[str]:
        """What its attributes say it holds (a long name, a description), in the order of ARRAY_DESCRIPTIONS."""
        return [self.attributes[k] for k in ARRAY_DESCRIPTIONS if self.attributes.get(k)]

    @property
    def units(self) -> str | None:
        return next((self.attributes[k] for k in ARRAY_UNITS if self.attributes.get(k)), None)

    @property
    def heading(self) -> str:
        """Its name, with its units in brackets where it has them: how summaries list arrays."""
        return f"{self.name} [{self.units}]" if self.units else self.name


class TableShape(BaseModel):
    """A table as a loader returns it, or as its profile says it should come out.

    Both sides of a loader check are written in this one shape: the indexer builds the
    expected shapes from a profile and the loaded ones from what the loader returned, and
    `ask` does the same from the summary its program prints in the kernel.
    """

    name: str | None = Field(None, description="sheet, table or key; None for a file's only table")
    columns: list[str] = Field(default_factory=list)
    numeric: list[str] = Field(default_factory=list, description="columns that hold numbers")
    rows: int = 0
    rows_exact: bool = Field(True, description="False: rows is a lower bound (a big file's estimate)")
    header_rows_in_data: int = Field(0, description="data rows that repeat the header or read as one")


class LoaderCheck(BaseModel):
    """What running a file's generated loader on the file showed, against its profile.

    The indexer runs each loader (bounded in time and memory, as profiling is) and compares
    what it returns with what profiling saw: columns, row count, numeric columns, and no
    header row among the data. A loader that disagrees is unverified, with the reasons.
    """

    verified: bool
    reasons: list[str] = Field(default_factory=list, description="why it is not verified, one sentence each")
    tables: int | None = Field(None, description="tables (frames, sheets, arrays) the loader returned")
    rows: int | None = Field(None, description="rows of the largest table it returned")
    columns: int | None = Field(None, description="columns of the largest table it returned")
    seconds: float | None = Field(None, description="how long the loader ran")

    def sentence(self) -> str:
        """One line a person reads beside the loader."""
        if self.verified:
            return "verified: run on the file at index time, it returned what the profile shows"
        return "unverified: " + "; ".join(self.reasons or ["it was not run"])


class ArchiveMember(BaseModel):
    """A file inside an archive whose tables the archive's profile lists (`FileProfile.tables`, in order).

    The archive names a member's only table by the member's path, and each table of a member that
    holds several (the sheets of a workbook) by the member's path and the table's name."""

    name: str = Field(description="the member's path inside the archive")
    format: str = Field(description="its detected format: csv, tsv, fwf, excel, json, jsonl, parquet, feather")
    encoding: str | None = None
    attributes: dict[str, str] = Field(default_factory=dict, description="its reader's metadata (engine ...)")
    size_bytes: int = Field(0, description="its size unpacked")
    tables: list[str | None] = Field(default_factory=list, description="each of its tables' names in the member")

    def table_names(self) -> list[str]:
        """Its tables' names in the archive's profile."""
        if len(self.tables) == 1:
            return [self.name]
        return [f"{self.name}: {t if t is not None else i + 1}" for i, t in enumerate(self.tables)]


class FileProfile(BaseModel):
    path: str = Field(description="lake-relative POSIX path")
    format: str = Field(description="detected format: csv, tsv, fwf, excel, json, jsonl, parquet, npz, npy, cdf, geo, html, pdf, text, markdown, image, binary, ...")
    kind: FileKind = "unknown"
    size_bytes: int = 0
    mtime_ns: int = 0
    status: FileStatus = "ok"
    reason: str | None = Field(None, description="why the file is not usable data, when status != ok")
    encoding: str | None = None
    tables: list[TableProfile] = Field(default_factory=list)
    arrays: list[ArrayProfile] = Field(default_factory=list)
    text: str | None = Field(None, description="leading text for documents; structure summary for JSON")
    attributes: dict[str, str] = Field(default_factory=dict, description="format metadata: CRS, CDF globals, page count ...")
    summary: str = Field("", description="one line a person reads to know what the file is")
    loader: str | None = Field(None, description="python code that loads the file correctly (from the profile)")
    loader_check: LoaderCheck | None = Field(None, description="the loader run on the file; None: not checked")
    described_by: list[str] = Field(
        default_factory=list, exclude_if=lambda v: not v,
        description="the lake's documents that say how to read this file (its column names, its fill values)",
    )
    members: list[ArchiveMember] = Field(
        default_factory=list, exclude_if=lambda v: not v, description="an archive's members read as tables"
    )
    profiled_in_s: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def column_names(self) -> list[str]:
        return [c.name for t in self.tables for c in t.columns]


class FileEntry(BaseModel):
    """One line of a file agent's inventory (tool list_files)."""

    path: str
    format: str
    kind: FileKind
    status: FileStatus
    size_bytes: int
    summary: str
