"""The lines of a text sample, cut out only when asked for.

Splitting a sample makes one string per line (thousands in a big file's head), and
testing each for blankness is a Python-level step per line, yet a profile looks at few of
them: the layout reads the first and last rows of each run, the statistics a few hundred
spread rows. Line ends, and the few lines that can be blank, are found with numpy on the
text's code units instead.
"""

from __future__ import annotations

from typing import Iterator, overload

import numpy as np

_NEWLINE = 10


class TextLines:
    """`text.split("\\n")` without its trailing empty line, as a lazy sequence.

    `text` has "\\n" line ends only (normalise_newlines).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        codes = code_units(text)
        ends = np.flatnonzero(codes == _NEWLINE)
        if text and not text.endswith("\n"):
            ends = np.append(ends, len(text))  # the last line has no line end
        self._codes = codes
        self._ends = ends
        self._starts = np.concatenate(([0], ends[:-1] + 1)) if len(ends) else ends
        self._split: list[str] | None = None

    @classmethod
    def of(cls, lines: list[str]) -> TextLines:
        return cls("".join(ln + "\n" for ln in lines))

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                return [self[k] for k in range(start, stop, step)]
            text = self.text
            return [text[s:e] for s, e in zip(self._starts[start:stop].tolist(), self._ends[start:stop].tolist())]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("line index out of range")
        return self.text[int(self._starts[i]) : int(self._ends[i])]

    def __iter__(self) -> Iterator[str]:
        # Every line: splitting in C is the fastest way there.
        if self._split is None:
            self._split = self.text.split("\n")
            if self._split[-1] == "":
                self._split.pop()
        return iter(self._split)

    def take(self, indices: list[int]) -> list[str]:
        """The lines at these indices."""
        text, starts, ends = self.text, self._starts, self._ends
        return [text[s:e] for s, e in zip(starts[indices].tolist(), ends[indices].tolist())]

    def find(self, line: str, start: int, stop: int) -> list[int]:
        """Indices k, start <= k < stop, of the lines equal to `line` (found by str.find, in C)."""
        out: list[int] = []
        stop = min(stop, len(self))
        if start >= stop:
            return out
        text, needle = self.text, line + "\n"
        at, end = self.offset(start), self.offset(stop)  # a line and its line end lie in text[at:end]
        while (at := text.find(needle, at, end)) >= 0:
            k = int(np.searchsorted(self._starts, at))
            if k < len(self) and int(self._starts[k]) == at:  # the match starts a line
                out.append(k)
            at += 1
        last = stop - 1  # the text's last line may have no line end
        if stop == len(self) and not text.endswith("\n") and self[last] == line:
            out.append(last)
        return out

    def offset(self, k: int) -> int:
        """Characters before line k, each line counted with its line end."""
        if k < len(self):
            return int(self._starts[k])
        return int(self._ends[-1]) + 1 if len(self) else 0

    def blank_lines(self, chars: str) -> list[int]:
        """Indices of the lines that hold only `chars` (or nothing), in order.

        Only a line that starts with one of `chars` or is empty can be blank, and in most
        tables few lines do: those few are tested one by one.
        """
        n = len(self)
        if not n:
            return []
        first = self._codes[self._starts]  # an empty line's first character is its line end
        can_be_blank = first == _NEWLINE
        for c in chars:  # a handful: cheaper than np.isin, which sorts
            can_be_blank |= first == ord(c)
        picks = np.flatnonzero(can_be_blank)
        if len(picks) > n // 4:  # e.g. every field quoted: test every line, in one pass
            return [k for k, line in enumerate(self) if not line.strip(chars)]
        return [k for k, line in zip(picks.tolist(), self.take(picks)) if not line.strip(chars)]


def code_units(text: str) -> np.ndarray:
    """The text as one array element per character (Latin-1 text: its bytes, no decoding)."""
    try:
        return np.frombuffer(text.encode("latin-1"), dtype=np.uint8)
    except UnicodeEncodeError:
        return np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
