"""The kernel server's MCP behaviour: tools, notebook semantics, resources (the HTTP transport and the
unsandboxed mode are in test_sessions.py, the CPU-time limit in test_tree_limits.py)."""

from __future__ import annotations

import asyncio
import base64
import json
import random
import time
from pathlib import Path

import nbformat
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from lakeboard.schemas.execution import ExecutionResult, KernelActionResult, NotebookSaved, SandboxPolicy, VariablesResult
from tests.servers.kernel.conftest import run

pytestmark = pytest.mark.asyncio(loop_scope="module")

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="


async def test_tools_and_output_schema(kernel: Client) -> None:
    tools = {tool.name: tool for tool in await kernel.list_tools()}
    assert {"execute", "interrupt", "restart", "variables", "save_notebook"} <= set(tools)
    schema = tools["execute"].output_schema
    assert schema is not None and {"stdout", "error", "sandboxed", "timed_out"} <= set(schema["properties"])


async def test_state_persists_between_cells(kernel: Client) -> None:
    first = await run(kernel, "import math\nradius = 2\nprint('hello')")
    second = await run(kernel, "area = math.pi * radius ** 2\nround(area, 3)")
    assert first.stdout == "hello\n" and first.result is None
    assert second.result == "12.566"
    assert second.execution_count == first.execution_count + 1
    assert second.sandboxed is True and second.warning is None and second.error is None


async def test_errors_and_stderr(kernel: Client) -> None:
    result = await run(kernel, "import sys\nprint('to stderr', file=sys.stderr)\n{}['missing']")
    assert result.stderr == "to stderr\n"
    assert result.error is not None and result.error.name == "KeyError" and result.error.value == "'missing'"
    assert any("Cell In[" in line for line in result.error.traceback)
    assert not any("\x1b[" in line for line in result.error.traceback)
    assert not result.ok


async def test_input_is_refused_not_hung(kernel: Client) -> None:
    result = await run(kernel, "input('name? ')", timeout_s=30)
    assert result.error is not None and result.error.name == "StdinNotImplementedError"
    assert result.duration_s < 30 / 2  # refused, not left waiting until the 30 s timeout


async def test_images_come_back_as_image_content(kernel: Client) -> None:
    code = f"import base64\nfrom IPython.display import Image, display\ndisplay(Image(data=base64.b64decode({PIXEL!r})))"
    raw = await kernel.call_tool("execute", {"code": code})
    result = ExecutionResult.model_validate(raw.structured_content)
    assert result.display and base64.b64decode(result.display[0].data["image/png"]) == base64.b64decode(PIXEL)
    images = [block for block in raw.content if block.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    assert base64.b64decode(images[0].data) == base64.b64decode(PIXEL)
    assert raw.content[0].type == "text"


async def test_rich_display_and_text_rendering(kernel: Client) -> None:
    raw = await kernel.call_tool("execute", {"code": "from IPython.display import HTML, display\ndisplay(HTML('<b>hi</b>'))\n6*7"})
    result = ExecutionResult.model_validate(raw.structured_content)
    assert result.display[0].data["text/html"] == "<b>hi</b>"
    assert result.result == "42"
    assert "Out[" in raw.content[0].text and "42" in raw.content[0].text


async def test_variables_lists_names_types_and_shapes(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    lake = kernel_dirs["lake"]
    await run(kernel, f"import pandas as pd, numpy as np\nframe = pd.read_csv({str(lake / 'data.csv')!r})\n"
                      "matrix = np.zeros((3, 4), dtype='int32')\nnames = ['a', 'b']\n_private = 1")
    raw = await kernel.call_tool("variables", {})
    listing = VariablesResult.model_validate(raw.structured_content)
    by_name = {v.name: v for v in listing.variables}
    assert by_name["frame"].type == "pandas.DataFrame" or by_name["frame"].type.endswith("DataFrame")
    assert by_name["frame"].shape == [2, 2]
    assert by_name["matrix"].shape == [3, 4] and by_name["matrix"].dtype == "int32"
    assert by_name["names"].length == 2 and by_name["names"].type == "list"
    assert "_private" not in by_name and "pd" not in by_name and "In" not in by_name
    # Listing is silent: it leaves no trace in the execution count.
    before = await run(kernel, "1")
    await kernel.call_tool("variables", {})
    after = await run(kernel, "1")
    assert after.execution_count == before.execution_count + 1


async def sleeping_cell(kernel: Client, workdir: Path, marker: str) -> asyncio.Task[ExecutionResult]:
    """A 60 s cell, returned once it runs: it leaves a marker file in the workdir first."""
    flag = workdir / marker
    cell = asyncio.create_task(run(kernel, f"open({marker!r}, 'w').close()\nimport time\ntime.sleep(60)", timeout_s=60))
    deadline = time.monotonic() + 60
    while not flag.exists():
        assert not cell.done(), cell.result()
        assert time.monotonic() < deadline, "the cell never started"
        await asyncio.sleep(0.02)
    return cell


async def test_interrupt_tool_stops_a_running_cell(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    await run(kernel, "survivor = 'kept'")
    cell = await sleeping_cell(kernel, kernel_dirs["workdir"], "interrupt-me.started")
    raw = await kernel.call_tool("interrupt", {})
    action = KernelActionResult.model_validate(raw.structured_content)
    assert action.action == "interrupt" and "sent" in action.message
    result = await asyncio.wait_for(cell, 20)
    assert result.error is not None and result.error.name == "KeyboardInterrupt"
    assert result.timed_out is False and result.restarted is False
    assert (await run(kernel, "survivor")).result == "'kept'"
    idle = KernelActionResult.model_validate((await kernel.call_tool("interrupt", {})).structured_content)
    assert "No cell" in idle.message


async def test_restart_tool_clears_state(kernel: Client) -> None:
    await run(kernel, "doomed = 1")
    raw = await kernel.call_tool("restart", {})
    action = KernelActionResult.model_validate(raw.structured_content)
    assert action.action == "restart" and action.startup_s is not None and action.startup_s > 0
    result = await run(kernel, "doomed")
    assert result.error is not None and result.error.name == "NameError"
    assert result.execution_count == 1


async def test_restart_during_a_running_cell(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    cell = await sleeping_cell(kernel, kernel_dirs["workdir"], "restart-me.started")
    started = time.monotonic()
    await kernel.call_tool("restart", {})
    result = await asyncio.wait_for(cell, 60)
    assert time.monotonic() - started < 60 / 2  # ended by the restart, not by its 60 s sleep
    assert result.restarted is True and result.error is not None and result.error.name == "KernelRestarted"
    assert (await run(kernel, "2 + 2")).result == "4"


async def test_notebook_resource_and_save(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    await run(kernel, "print('recorded')")
    contents = await kernel.read_resource("kernel://notebook.ipynb")
    nb = nbformat.reads(contents[0].text, as_version=4)
    nbformat.validate(nb)
    sources = [cell.source for cell in nb.cells]
    assert "print('recorded')" in sources
    recorded = next(cell for cell in nb.cells if cell.source == "print('recorded')")
    assert recorded.outputs[0].output_type == "stream" and recorded.outputs[0].text == "recorded\n"
    assert any(cell.cell_type == "markdown" and "restarted" in cell.source for cell in nb.cells)
    errors = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs if o.output_type == "error"]
    assert any(o.ename == "KeyError" for o in errors)

    raw = await kernel.call_tool("save_notebook", {"path": "session.ipynb"})
    saved = NotebookSaved.model_validate(raw.structured_content)
    path = kernel_dirs["workdir"] / "session.ipynb"
    assert saved.path == str(path) and saved.cells == len(nb.cells) + 0 or saved.cells >= len(nb.cells)
    nbformat.validate(nbformat.read(path, as_version=4))
    assert not list(kernel_dirs["workdir"].glob(".session.ipynb.*"))  # no temporary file left


async def test_save_notebook_refuses_bad_paths(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    lake = kernel_dirs["lake"]
    with pytest.raises(ToolError, match="read-only"):
        await kernel.call_tool("save_notebook", {"path": str(lake / "session.ipynb")})
    with pytest.raises(ToolError, match=r"\.ipynb"):
        await kernel.call_tool("save_notebook", {"path": "notes.txt"})
    with pytest.raises(ToolError, match="does not exist"):
        await kernel.call_tool("save_notebook", {"path": "no/such/dir/x.ipynb"})
    assert not (lake / "session.ipynb").exists()


def outside_listing(root: Path, workdir: Path) -> set[Path]:
    """Every path under the test's root folder except the workdir's own content."""
    return {p for p in root.rglob("*") if workdir not in p.parents}


async def test_save_notebook_stays_inside_the_workdir(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    root, workdir = kernel_dirs["root"], kernel_dirs["workdir"]
    outside = root / "outside"
    outside.mkdir(exist_ok=True)
    before = outside_listing(root, workdir)
    escapes = [
        str(outside / "abs.ipynb"), "../outside/up.ipynb", "sub/../../outside/down.ipynb",
        f"{workdir}/../outside/joined.ipynb", "/tmp/anywhere.ipynb", "../../../../../../etc/cron.d/x.ipynb",
        "/root/x.ipynb", "..\\..\\x.ipynb/../../y.ipynb",
    ]
    for path in escapes:
        with pytest.raises(ToolError, match="outside the workdir") as refused:
            await kernel.call_tool("save_notebook", {"path": path})
        assert "\n" not in str(refused.value) and "Traceback" not in str(refused.value)
    assert outside_listing(root, workdir) == before
    # An absolute path that is inside the workdir is fine.
    saved = NotebookSaved.model_validate(
        (await kernel.call_tool("save_notebook", {"path": str(workdir / "absolute.ipynb")})).structured_content
    )
    assert saved.path == str(workdir / "absolute.ipynb")
    nbformat.validate(nbformat.read(workdir / "absolute.ipynb", as_version=4))


async def test_save_notebook_follows_no_symlink(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    root, workdir = kernel_dirs["root"], kernel_dirs["workdir"]
    outside = root / "outside"
    outside.mkdir(exist_ok=True)
    precious = outside / "precious.ipynb"
    precious.write_text("precious")
    # The kernel's own code plants the links: it can write the workdir, the server runs as root.
    planted = await run(kernel, (
        "import os\n"
        f"os.symlink({str(outside)!r}, 'escape_dir')\n"
        f"os.symlink({str(precious)!r}, 'planted.ipynb')\n"
        "os.makedirs('real_dir', exist_ok=True)\n"
        "os.symlink('real_dir', 'inner_link')"
    ))
    assert planted.error is None, planted.error
    before = outside_listing(root, workdir)
    with pytest.raises(ToolError, match="symbolic link"):
        await kernel.call_tool("save_notebook", {"path": "escape_dir/x.ipynb"})
    with pytest.raises(ToolError, match="symbolic link"):
        await kernel.call_tool("save_notebook", {"path": "planted.ipynb"})
    with pytest.raises(ToolError, match="symbolic link"):
        await kernel.call_tool("save_notebook", {"path": "inner_link/x.ipynb"})
    assert precious.read_text() == "precious" and (workdir / "planted.ipynb").is_symlink()
    assert outside_listing(root, workdir) == before
    saved = await kernel.call_tool("save_notebook", {"path": "real_dir/ok.ipynb"})
    assert NotebookSaved.model_validate(saved.structured_content).path == str(workdir / "real_dir" / "ok.ipynb")
    await run(kernel, "for link in ('escape_dir', 'planted.ipynb', 'inner_link'): os.remove(link)")


def hostile_names(count: int, seed: int) -> list[str]:
    """Random file names built from the characters that break naive code."""
    rng = random.Random(seed)
    pieces = ["\n", "\r", "'", '"', '"""', "\\", "\u2028", "\u2029", "\u0085", "\t", " ", "..", "$HOME", "`id`",
              "%s", "{}", "é", "\x00", "a", "b"]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))) for _ in range(count)]


async def test_save_notebook_with_hostile_names(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    root, workdir = kernel_dirs["root"], kernel_dirs["workdir"]
    before = outside_listing(root, workdir)
    for name in [*hostile_names(40, seed=17), "\x00../../x", "..", "\n../..", "nul\x00/../../../x"]:
        path = f"{name}.ipynb"
        try:
            raw = await kernel.call_tool("save_notebook", {"path": path})
        except ToolError as exc:
            message = str(exc)
            assert "Traceback" not in message and message.strip(), (name, message)
            continue
        written = Path(NotebookSaved.model_validate(raw.structured_content).path)
        assert written == workdir / path and written.parent == workdir, name
        nbformat.validate(nbformat.read(written, as_version=4))
        written.unlink()
    assert outside_listing(root, workdir) == before
    assert not list(workdir.glob(".lakeboard-*.tmp"))


async def test_sandbox_resource(kernel: Client, kernel_dirs: dict[str, Path]) -> None:
    contents = await kernel.read_resource("kernel://sandbox")
    policy = SandboxPolicy.model_validate_json(contents[0].text)
    assert policy.sandboxed and policy.mechanism == "bubblewrap" and policy.network is False
    assert policy.lake == str(kernel_dirs["lake"]) and policy.workdir == str(kernel_dirs["workdir"])
    assert policy.memory_mb == 1024 and policy.max_procs == 64 and policy.workdir_mb == 1024
    assert policy.process_limit in ("cgroup", "rlimit", "watchdog") and policy.memory_limit in ("cgroup", "watchdog")
    assert policy.cpu_limit == "watchdog" and policy.workdir_limit == "watchdog" and policy.warning is None


async def test_bad_arguments_are_rejected(kernel: Client) -> None:
    with pytest.raises(ToolError):
        await kernel.call_tool("execute", {"code": "1", "timeout_s": -1})
    assert (await run(kernel, "3 * 3")).result == "9"


async def test_a_matplotlib_figure_comes_back_as_an_image_and_into_the_notebook(kernel: Client) -> None:
    # A person would rather look at a chart: the kernel has matplotlib, and its inline backend
    # turns a shown figure into a PNG display, as in Jupyter.
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3], [4, 1, 9])\nplt.title('rain')\nplt.show()"
    raw = await kernel.call_tool("execute", {"code": code}, timeout=120)
    result = ExecutionResult.model_validate(raw.structured_content)
    assert result.ok, (result.error, result.stderr)
    images = [block for block in raw.content if block.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    assert base64.b64decode(images[0].data).startswith(b"\x89PNG")
    notebook = json.loads((await kernel.read_resource("kernel://notebook.ipynb"))[0].text)
    outputs = [o for cell in notebook["cells"] if "plt.show()" in "".join(cell["source"]) for o in cell["outputs"]]
    assert any("image/png" in o.get("data", {}) for o in outputs)
