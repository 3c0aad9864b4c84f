"""The session as a notebook: every executed cell and its outputs, in nbformat v4."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
from nbformat import v4

from lakeboard.servers.kernel.workdir_files import path_in_workdir, write_text_in_workdir


class NotebookRecorder:
    def __init__(self) -> None:
        self._nb = v4.new_notebook()
        self._nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}

    def set_language_info(self, info: dict[str, Any]) -> None:
        if info:
            self._nb.metadata["language_info"] = info

    def add_cell(self, source: str, execution_count: int | None, outputs: list[dict[str, Any]],
                 metadata: dict[str, Any] | None = None) -> None:
        cell = v4.new_code_cell(source=source, execution_count=execution_count)
        cell.outputs = [nbformat.from_dict(output) for output in outputs]
        if metadata:
            cell.metadata["lakeboard"] = metadata
        self._nb.cells.append(cell)

    def add_note(self, text: str) -> None:
        """A markdown cell, e.g. where the kernel was restarted (state was lost there)."""
        self._nb.cells.append(v4.new_markdown_cell(text))

    @property
    def cell_count(self) -> int:
        return len(self._nb.cells)

    def to_json(self) -> str:
        return nbformat.writes(self._nb, version=4)

    def save(self, path: str, workdir: Path, lake: Path) -> Path:
        """Write the notebook at `path` inside the workdir (atomically, following no link);
        return the absolute path. Raises WorkdirPathError for a path it will not write."""
        return write_text_in_workdir(workdir, path_in_workdir(path, workdir, lake), self.to_json())
