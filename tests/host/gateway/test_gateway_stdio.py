"""The gateway's tools, prompts and resources on the demo lake, with a real MCP client.

The demo lake's gateway is served in this process over fastmcp's in-memory transport (its file agents, search
agent and kernel are processes of their own): what it answers is the server's, not the transport's. The stdio
transport (malformed, oversized and nested lines) is checked on a real `lakeboard serve` process in
test_gateway_disk.py, and the entry a client pastes is started as one over stdio on the demo lake in
tests/e2e/test_gateway.py. The same demo gateway shows that its helpers are forks of one fork server however
python is spelled: `lakeboard serve` builds this Gateway and nothing else.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import psutil
import pytest

from lakeboard.host.gateway.models import HelpBoard, Partitions
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.execution import ExecutionResult
from tests.conftest import DEMO_LAKE
from tests.e2e import scenarios
from tests.host.gateway.conftest import gateway_in_memory
from tests.support.servers import python_spellings

pytestmark = pytest.mark.timeout(300)

PM25 = "daily PM2.5 readings of the sensors in 2024"  # the sensors' monthly files
SERVICES = scenarios.QUESTIONS["demo-easy-2"]["query"]


def title(process: psutil.Process) -> list[str]:
    # A forked server's title is its whole command line as one string.
    return " ".join(process.cmdline()).split()


def helpers_and_fork_servers(root: psutil.Process) -> tuple[dict[str, psutil.Process], list[psutil.Process]]:
    """The helpers under `root` by the partition or name in their command line, and the fork servers."""
    helpers, fork_servers = {}, []
    for process in root.children(recursive=True):
        try:
            words = title(process)
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
        if "lakeboard.servers.fork_server" in words:
            fork_servers.append(process)
        elif "lakeboard.servers.file_agent" in words:
            helpers[words[words.index("--cluster") + 1]] = process
        elif "lakeboard.servers.search_agent" in words:
            helpers[words[words.index("--name") + 1]] = process
    return helpers, fork_servers


def kernel_server_parents(root: psutil.Process) -> list[int]:
    parents = []
    for process in root.children(recursive=True):
        try:
            if "lakeboard.servers.kernel" in title(process):
                parents.append(process.ppid())
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            continue
    return parents


async def test_tools_prompts_and_resources_of_the_demo_gateway_whose_helpers_are_forks_however_python_is_spelled(
        gateway_config: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clusters = ClusterConfig.model_validate_json((gateway_config / "clusters.json").read_text()).clusters
    # The gateway mounts its helpers after making its pool, so they are forks, not cold starts (issue 25),
    # whether an entry names this Python as python3, python or its full path.
    path = gateway_config / "servers.json"
    servers = json.loads(path.read_text())
    servers["mcpServers"]["demo-sensors"]["command"] = "python3"
    servers["mcpServers"]["demo-search"]["command"] = "python"
    path.write_text(json.dumps(servers))
    monkeypatch.setenv("PATH", os.pathsep.join([str(python_spellings(tmp_path)), os.environ.get("PATH", "")]))
    async with gateway_in_memory(gateway_config, monkeypatch) as client:
        assert client.initialize_result.server_info.name == "lakeboard"
        assert str(DEMO_LAKE) in client.initialize_result.instructions

        tools = {t.name: t for t in await client.list_tools()}
        assert set(tools) == {"request_help", "run_code", "list_partitions"}
        assert tools["request_help"].annotations.read_only_hint is True
        assert tools["list_partitions"].annotations.read_only_hint and tools["list_partitions"].annotations.idempotent_hint
        run_code = tools["run_code"].annotations
        assert run_code.read_only_hint is False and run_code.destructive_hint is False and run_code.open_world_hint is False
        assert tools["request_help"].input_schema["properties"]["request"]["type"] == "string"

        # request_help: the broadcast's response board, the right files first.
        result = await client.call_tool("request_help", {"request": PM25})
        board = HelpBoard.model_validate(result.structured_content)
        assert board.files == [f"air_quality/sensors/readings_2024-{m:02d}.csv" for m in range(1, 13)]
        assert board.helpers == len(clusters) + 1  # every file agent and the search agent saw it
        assert any(o.helper == "demo-sensors" and o.response.files for o in board.responses)
        assert board.failed == [] and board.timed_out == []
        helpers, fork_servers = helpers_and_fork_servers(psutil.Process())
        assert sorted(helpers) == ["air-quality-services", "budget-districts", "demo-search", "docs-inbox",
                                   "sensors", "transit-weather"]
        (fork_server,) = fork_servers  # the gateway's one: its kernels fork from it too (below)
        assert {p.ppid() for p in helpers.values()} == {fork_server.pid}
        text = result.content[0].text
        assert "- `air_quality/sensors/readings_2024-01.csv` and 11 more files of the same layout" in text
        assert "```python" in text and "term_weights" not in text

        board = HelpBoard.model_validate((await client.call_tool("request_help", {"request": SERVICES})).structured_content)
        assert board.files[0] == "services/service_requests_2024.jsonl"
        empty = await client.call_tool("request_help", {"request": " "}, raise_on_error=False)
        assert empty.is_error and "The request is empty" in empty.content[0].text

        # run_code: the sandboxed kernel, variables kept, the lake read-only.
        first = await client.call_tool("run_code", {"code": f"lake = {str(DEMO_LAKE)!r}\nimport os\nsorted(os.listdir(lake))[:3]"})
        ran = ExecutionResult.model_validate(first.structured_content)
        assert ran.ok and ran.sandboxed and "air_quality" in ran.result
        assert kernel_server_parents(psutil.Process()) == [fork_server.pid]
        write = ("try:\n    open(os.path.join(lake, 'written.txt'), 'w')\nexcept OSError as exc:\n"
                 "    print('refused', type(exc).__name__)")
        refused = await client.call_tool("run_code", {"code": write})
        assert "refused" in refused.content[0].text and not (DEMO_LAKE / "written.txt").exists()
        failed = await client.call_tool("run_code", {"code": "1 / 0"})
        assert ExecutionResult.model_validate(failed.structured_content).error.name == "ZeroDivisionError"
        assert "ZeroDivisionError" in failed.content[0].text

        partitions = Partitions.model_validate((await client.call_tool("list_partitions", {})).structured_content)
        assert [p.name for p in partitions.partitions] == [c.name for c in clusters]
        assert all(p.server == f"demo-{p.name}" and p.files and p.description for p in partitions.partitions)
        assert partitions.other_helpers == ["demo-search"] and partitions.folder == str(DEMO_LAKE)

        # The prompts list and render.
        prompts = {p.name: p for p in await client.list_prompts()}
        assert set(prompts) == {"answer_question", "find_data"}
        assert [a.name for a in prompts["answer_question"].arguments] == ["question"]
        rendered = (await client.get_prompt("answer_question", {"question": "Which {district} had most rain?"}))
        protocol = rendered.messages[0].content.text
        for words in ("plan", "reason", "request_help", "run_code", "answer", "at most 10 actions",
                      'print(json.dumps({"answer": ...}))', "self-contained", str(DEMO_LAKE),
                      "Question: Which {district} had most rain?"):
            assert words in protocol, words
        need = (await client.get_prompt("find_data", {"need": "daily rainfall per station"})).messages[0].content.text
        assert "daily rainfall per station" in need and "request_help" in need

        # Resources: the lake, a partition, a file's sample read from its file agent.
        overview = (await client.read_resource("lakeboard://lake"))[0].text
        assert all(f"**{c.name}**" in overview for c in clusters) and "Kernel for run_code: local" in overview
        sensors = next(c for c in clusters if "air_quality/sensors/readings_2024-01.csv" in c.files)
        page = (await client.read_resource(f"lakeboard://partitions/{sensors.name}"))[0].text
        assert sensors.description.split(":")[0] in page and "- `air_quality/sensors/readings_2024-12.csv`" in page
        sample = (await client.read_resource("lakeboard://files/districts/population_2024.csv"))[0].text
        assert "population_2024.csv" in sample and "households" in sample
        assert "\n# loader check: " in sample and "def load_districts_population_2024_csv(path):" in sample
        with pytest.raises(Exception, match="not a file of this lake"):
            await client.read_resource("lakeboard://files/districts/nothing_here.csv")

