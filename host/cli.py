"""`lakeboard`: index a lake, discover its data, evaluate on a workload, ask questions."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

from lakeboard.common.object_stores import OPTIONS_VARIABLE, storage_options
from lakeboard.common.private_files import keep_new_files_private
from lakeboard.common.code_text import printable
from lakeboard.common.file_lists import copies_note
from lakeboard.common.gc_pauses import quick_imports
from lakeboard.common.process_exit import exit_now
from lakeboard.host.baselines.modes import MODES
from lakeboard.host.lakes import LakeError, indexer_command, indexer_environment, indexer_failure, resolve_lake


def _cmd_index(args: argparse.Namespace, extra: list[str]) -> int:
    # The indexer says what went wrong itself; its exit code is this command's. The model's
    # flags go along; its key goes in the environment, never on a command line.
    model_flags = [f for flag, value in (("--model", args.model), ("--base-url", args.base_url),
                                         ("--llm-config", args.llm_config)) if value for f in (flag, str(value))]
    secrets = {"LAKEBOARD_LLM_API_KEY": args.api_key} if args.api_key else {}
    if args.storage_option:  # they may hold keys: through the environment, never on the indexer's command line
        try:
            secrets[OPTIONS_VARIABLE] = json.dumps(storage_options(args.storage_option))
        except ValueError as exc:
            print(f"lakeboard index: {exc}", file=sys.stderr)
            return 2
    env = indexer_environment(secrets)
    command = indexer_command(args.lake, args.out, name=args.name, extra=[*model_flags, *extra])
    code = subprocess.run(command, env=env).returncode
    if code < 0 or code == 130:  # a signal leaves no word from the indexer itself
        print(f"lakeboard index: {indexer_failure(code)}", file=sys.stderr)
        return 130 if code in (130, -signal.SIGINT) else 128 - code
    return code


async def _discover(args: argparse.Namespace) -> int:
    # the lake first: a refusal (no lake, an empty one) comes before the MCP machinery is imported
    lake = resolve_lake(args.lake, configs=args.configs, reindex=args.reindex, quiet=args.json)
    with quick_imports():
        from lakeboard.host.blackboard import Blackboard
        from lakeboard.host.discover_files import discover
        from lakeboard.host.pool import ClientPool
        from lakeboard.host.trace import Trace

    with Trace(lake.output(args.trace or lake.config_dir / "traces" / "discover.jsonl")) as trace:
        async with ClientPool(lake.servers(helpers_only=True), trace=trace, log_dir=lake.config_dir / "logs",
                              connect_timeout_s=args.timeout) as pool:
            board = Blackboard(pool, trace, can_help_timeout_s=args.timeout, respond_timeout_s=args.timeout,
                               lake_index=lake.search_index, mirror=lake.mirror())
            result = await discover(board, args.request)
    if args.json:
        listed = {"path", "score", "role"}
        print(json.dumps({"request": result.request, "responses": result.responses, "files": result.files,
                          "ranked_next": [m.model_dump(mode="json", include=listed) for m in result.ranked_next],
                          "closest": [m.model_dump(mode="json", include=listed) for m in result.closest]}, indent=2))
        return 0
    _print_discovery(result)
    return 0 if result.files else 1


def _print_discovery(result) -> None:
    # Names, reasons and code come from the lake: `printable` shows their control characters
    # escaped, so an escape sequence in a file name never reaches the terminal.
    print(f"Request: {printable(result.request, 2000)}")
    volunteers = ", ".join(printable(v, 120) for v in result.volunteers)
    print(f"Broadcast took {result.broadcast_s:.2f}s; volunteers: {volunteers or 'none'}")
    for helper, err in result.errors.items():
        print(f"  ! {printable(helper, 120)}: {printable(err, 1000)}")
    if not result.files:
        print("\nNo file of this lake covers the request well enough.")
        if result.closest:
            from lakeboard.host.discover_files import scored_paths  # imported already: discover ran

            print(printable("Closest all the same, each below its agent's threshold: " + scored_paths(result.closest), 2000))
        return
    print("\nFiles, most relevant first:")
    family_sizes: dict[str, int] = {}
    for m in result.matches:
        if m.group:
            family_sizes[m.group] = family_sizes.get(m.group, 0) + 1
    shown: set[str] = set()
    for m in result.matches:
        if m.group and m.group in shown:
            continue
        role = "" if m.role == "data" else f" [{m.role}]"
        more = ""
        if m.group:
            shown.add(m.group)
            if family_sizes[m.group] > 1:
                more = f" + {family_sizes[m.group] - 1} more files of the same layout"
        more += copies_note(m.copies, lambda c: printable(c, 200))
        terms = ", ".join(printable(t, 80) for t in m.matched_terms[:6])
        print(f"  {m.score:.2f}  {printable(m.path, 500)}{role}{more}   (matches: {terms})")
    if result.ranked_next:
        from lakeboard.host.discover_files import scored_paths  # imported already: discover ran

        print(printable("Ranked next, not chosen: " + scored_paths(result.ranked_next), 2000))
    chosen = set(result.files)
    for resp in result.responses:
        if set(resp.get("files", [])) & chosen and resp.get("code"):
            print(f"\n--- from {printable(resp['agent_name'], 120)}: {printable(resp.get('reason', ''), 1000)}")
            print(printable(resp["code"], 100_000, lines=True))
            for step in resp.get("necessary_steps", [])[:8]:
                print(f"  * {printable(step, 1000)}")


def _cmd_discover(args: argparse.Namespace, _extra: list[str]) -> int:
    if not args.request.strip():
        print('lakeboard discover: the request is empty: say what data you need, '
              'e.g. lakeboard discover LAKE "daily rainfall per station in 2024"', file=sys.stderr)
        return 2
    return asyncio.run(_discover(args))


def _cmd_eval(args: argparse.Namespace, _extra: list[str]) -> int:
    with quick_imports():
        from lakeboard.host.eval.runner import run_eval

    return asyncio.run(run_eval(args))


async def _ask(args: argparse.Namespace, settings) -> int:
    import time

    lake = resolve_lake(args.lake, configs=args.configs, reindex=args.reindex, quiet=args.json)
    if lake.root is None:
        raise LakeError(f"cannot tell which folder {args.lake!r} indexes: give the lake folder")
    from lakeboard.common.atomic_files import write_text_atomic
    with quick_imports():
        from lakeboard.host.agents.session import AskSession, usage_line
        from lakeboard.host.kernel_session import KernelUnavailable
        from lakeboard.host.trace import Trace

    trace_path = lake.output(args.trace) if args.trace else None
    notebook_path = lake.output(args.notebook) if args.notebook else None
    run_dir = lake.config_dir / "runs" / time.strftime("%Y%m%d-%H%M%S")
    while run_dir.exists():
        run_dir = run_dir.with_name(run_dir.name + "-1")
    run_dir.mkdir(parents=True)
    trace_path = trace_path or run_dir / "trace.jsonl"
    say = (lambda *a: print(*a, file=sys.stderr)) if args.json else print
    if settings is None:
        say("No model is configured (--model/--base-url, LAKEBOARD_LLM_MODEL, or ~/.config/lakeboard/llm.toml), "
            "so Lakeboard cannot compute the answer. It finds the data the question needs and returns a "
            "verified program that loads it.")
    else:
        say("Model: " + "; ".join(settings.describe()[:2]))
    try:
        with Trace(trace_path) as trace:
            async with AskSession(lake, settings, trace=trace, max_steps=args.max_steps, helper_timeout_s=args.timeout,
                                  cell_timeout_s=args.cell_timeout, lend_model=not args.offline_helpers) as session:
                result = await session.ask(args.question, mode=args.mode)
                notebook = notebook_path or run_dir / "session.ipynb"
                try:
                    await session.save_notebook(notebook)
                except KernelUnavailable as exc:
                    say(f"(the notebook could not be saved: {exc})")
                    notebook = None
    except KernelUnavailable as exc:
        raise LakeError(str(exc)) from exc  # main() reports it
    program_path = None
    if result.program:
        program_path = run_dir / "program.py"
        write_text_atomic(program_path, result.program)
    write_text_atomic(run_dir / "result.json", result.model_dump_json(indent=1))
    code = 0 if result.status in ("answered", "offline") else 1
    if args.json:
        print(result.model_dump_json(indent=1))
        return code
    _print_run(result)
    unfinished = " (unfinished: the run stopped at its action budget)" if result.status == "max_steps" else ""
    print(f"\nProgram:  {program_path or '(none)'}{unfinished if program_path else ''}")
    print(f"Notebook: {notebook or '(none)'}")
    print(f"Trace:    {trace_path}")
    print(f"Result:   {run_dir / 'result.json'}")
    print(usage_line(result.usage))
    return code


def _print_run(result) -> None:
    print(f"\nQuestion: {result.question}")
    if result.status == "answered":
        print(f"Answer: {json.dumps(result.answer, default=str)}")
    elif result.status == "offline" and result.summary is not None:
        datasets = (result.summary or {}).get("datasets", {}) if isinstance(result.summary, dict) else {}
        print("Loaded (the program ran in the kernel):")
        for name, info in datasets.items():
            columns = info.get("n_columns", len(info.get("columns", [])))  # the summary lists only the first columns
            shape = f"{info.get('rows')} rows x {columns} columns" if "rows" in info else info.get("type", "")
            print(f"  {printable(name, 500)}: {printable(shape, 200)}")
    else:
        print(f"No answer ({result.status}): {printable(result.error or 'see the trace', 2000)}")
    if result.data_sources:
        print("Data sources: " + ", ".join(printable(s, 500) for s in result.data_sources))
    for note in result.notes:
        print(f"  note: {printable(note, 2000)}")
    print(f"Actions: {len(result.steps)}; {result.elapsed_s:.1f}s")


def _cmd_ask(args: argparse.Namespace, _extra: list[str]) -> int:
    from lakeboard.host.agents.session import llm_settings
    from lakeboard.host.llm import LLMConfigError

    try:
        settings = llm_settings(args)
    except LLMConfigError as exc:
        raise LakeError(str(exc)) from exc  # main() reports it
    if args.max_steps < 1:
        print("lakeboard ask: --max-steps must be at least 1", file=sys.stderr)
        return 2
    if not args.question.strip():
        print('lakeboard ask: the question is empty: ask it in words, '
              'e.g. lakeboard ask LAKE "which station had the most rain in 2024?"', file=sys.stderr)
        return 2
    return asyncio.run(_ask(args, settings))


def _cmd_loader(args: argparse.Namespace, _extra: list[str]) -> int:
    from lakeboard.common.loader_reports import loader_report
    from lakeboard.host.file_loaders import file_loader, lake_relative

    path = lake_relative(args.path)  # refused before anything is read or indexed
    lake = resolve_lake(args.lake, configs=args.configs, reindex=args.reindex, quiet=args.json)
    if lake.root is None:
        raise LakeError(f"cannot tell which folder {args.lake!r} indexes: give the lake folder")
    loader = file_loader(lake, path)
    if args.json:
        print(json.dumps(loader.model_dump(mode="json"), indent=1))  # ASCII: nothing from the lake acts on a terminal
    else:  # a program that runs as is: `lakeboard loader LAKE PATH > load.py`
        print(printable(loader_report(loader, lake.root), 1_000_000, lines=True), end="")
    return 0


def _cmd_servers(args: argparse.Namespace, _extra: list[str]) -> int:
    lake = resolve_lake(args.lake, configs=args.configs, refresh=False)  # its entries do not change with an index
    if not (args.claude or args.write):
        print(json.dumps(lake.all_servers().to_mcp_config(), indent=2))
        return 0
    from lakeboard.host.gateway.claude_config import ClientConfigError, claude_block, merge_into

    try:
        block = claude_block(lake, kernel_url=args.kernel_url, kernel_token=args.kernel_token)
        if args.write is None:
            print(json.dumps(block, indent=2))
            return 0
        merged = merge_into(args.write, block)
    except ClientConfigError as exc:
        print(f"lakeboard servers: {exc}", file=sys.stderr)
        return 2
    (name,) = block["mcpServers"]
    others = f"; the other servers are kept: {', '.join(merged.kept)}" if merged.kept else ""
    what = "Replaced the earlier entry of the server" if merged.replaced else "Wrote the server"
    print(f"{what} {name!r} in {args.write}{others}. Restart the client to load it.")
    return 0


def _cmd_serve(args: argparse.Namespace, _extra: list[str]) -> int:
    with quick_imports():
        from lakeboard.host.gateway.command import serve

    return serve(args)


# Said, not computed, in --help: the folder depends on LAKEBOARD_HOME when a command runs.
_DEFAULT_CONFIGS = "$LAKEBOARD_HOME/configs, else configs/ in the user data folder, e.g. ~/.local/share/lakeboard"


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="lakeboard", description=__doc__)
    ap.add_argument("-v", "--verbose", action="store_true", help="log what the host does")
    sub = ap.add_subparsers(dest="command", required=True)

    p = sub.add_parser("index", help="profile a lake, partition it, write CONFIGS/NAME/{clusters,servers}.json",
                       description="Other flags (--strategy, --clusters, --docs, --workers, --time-budget, --quiet) "
                                   "go to the indexer.")
    p.add_argument("lake", help="a lake folder, or a prefix of a bucket: s3://bucket/prefix, gs://..., az://...")
    p.add_argument("--name")
    p.add_argument("--storage-option", action="append", default=[], metavar="KEY=VALUE",
                   help="an option of the bucket's filesystem (fsspec), e.g. endpoint_url=http://...; credentials "
                        "come best from the store's usual chain (environment, profile files); none is ever written")
    p.add_argument("--out", type=Path, help=f"configs folder (default: {_DEFAULT_CONFIGS})")
    p.add_argument("--model", help="model for the file agents' analysis and --strategy llm (given as for ask)")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
    p.add_argument("--api-key", help="API key (else LAKEBOARD_LLM_API_KEY / OPENAI_API_KEY)")
    p.add_argument("--llm-config", type=Path, help="LLM config file (TOML)")
    p.set_defaults(func=_cmd_index, passthrough=True)

    def lake_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("--configs", type=Path, help=f"where lake configs live (default: {_DEFAULT_CONFIGS})")
        q.add_argument("--reindex", action="store_true", help="index the lake again before answering")

    def model_args(q: argparse.ArgumentParser) -> None:
        q.add_argument("--model", help="model name (else LAKEBOARD_LLM_MODEL / the config file; none: offline)")
        q.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
        q.add_argument("--api-key", help="API key (else LAKEBOARD_LLM_API_KEY / OPENAI_API_KEY)")
        q.add_argument("--llm-config", type=Path, help="LLM config file (TOML)")

    p = sub.add_parser("ask", help="answer a question about a lake (with a model), or find and load its data (without)")
    p.add_argument("lake", help="a lake folder (indexed on first use) or a config folder")
    p.add_argument("question")
    p.add_argument("--max-steps", type=int, default=10, help="most actions the main agent takes (default 10)")
    p.add_argument("--notebook", type=Path, help="where to write the kernel session (default: CONFIG/runs/TS/session.ipynb)")
    p.add_argument("--timeout", type=float, default=60.0, help="per-helper timeout in seconds")
    p.add_argument("--cell-timeout", type=float, default=120.0, help="per-cell timeout in the kernel, seconds")
    p.add_argument("--offline-helpers", action="store_true", help="file agents answer without the model (faster, fewer tokens)")
    p.add_argument("--mode", choices=MODES, default="blackboard",
                   help="the blackboard (default) or one of the paper's baselines, each with its own prompt")
    p.add_argument("--trace", type=Path, help="JSONL trace (default: CONFIG/runs/TS/trace.jsonl)")
    p.add_argument("--json", action="store_true", help="print the whole run result as JSON")
    model_args(p)
    lake_args(p)
    p.set_defaults(func=_cmd_ask)

    p = sub.add_parser("discover", help="find the files a request needs, with code that loads them")
    p.add_argument("lake", help="a lake folder (indexed on first use) or a config folder")
    p.add_argument("request")
    p.add_argument("--json", action="store_true")
    p.add_argument("--timeout", type=float, default=30.0, help="per-helper timeout in seconds")
    p.add_argument("--trace", type=Path, help="JSONL trace (default: CONFIG/traces/discover.jsonl)")
    lake_args(p)
    p.set_defaults(func=_cmd_discover)

    p = sub.add_parser("loader", help="print the code that loads one file of a lake, and whether it was checked",
                       description="The file's loader, made from its profile, with the check the index ran: "
                                   "verified (run on the file, it returned what the profile shows), or unverified "
                                   "and why. The text output is a program that binds the file's data to `data`.")
    p.add_argument("lake", help="a lake folder (indexed on first use) or a config folder")
    p.add_argument("path", help="the file, relative to the lake folder")
    p.add_argument("--json", action="store_true", help="print the typed loader (function, imports, check, expected tables)")
    lake_args(p)
    p.set_defaults(func=_cmd_loader)

    p = sub.add_parser("eval", help="run a KramaBench-style workload and score it")
    p.add_argument("workload", type=Path)
    p.add_argument("--lake", required=True)
    p.add_argument("--config", type=Path, help="config folder (default: the lake's, indexed on first use)")
    p.add_argument("--discovery-only", action="store_true")
    p.add_argument("--mode", nargs="+", choices=[*MODES, "all"], default=["blackboard"],
                   help="the system, or the paper's baselines, to run (several, or all, for a table per mode; "
                        "with --discovery-only no model is needed)")
    p.add_argument("--out", type=Path, help="results JSONL (one line per task)")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--max-steps", type=int, default=10, help="most actions per task (answer evaluation)")
    p.add_argument("--cell-timeout", type=float, default=120.0)
    p.add_argument("--offline-helpers", action="store_true")
    model_args(p)
    lake_args(p)
    p.set_defaults(func=_cmd_eval)

    p = sub.add_parser("servers", help="print a lake's merged mcpServers configuration")
    p.add_argument("lake")
    p.add_argument("--claude", action="store_true",
                   help="print only the gateway's entry, as a claude_desktop_config.json block")
    p.add_argument("--write", type=Path, metavar="PATH",
                   help="merge that block into the client config file PATH (other servers are kept)")
    p.add_argument("--kernel-url", metavar="URL", help="the gateway runs code on this remote kernel server")
    p.add_argument("--kernel-token", metavar="TOKEN", help="that kernel server's --auth-token (put in the entry's env)")
    lake_args(p)
    p.set_defaults(func=_cmd_servers)

    from lakeboard.host.gateway.command import add_arguments as serve_arguments

    p = sub.add_parser("serve", help="serve the lake's blackboard as one MCP server (Claude Desktop, any MCP client)",
                       description="One MCP server, lakeboard: request_help, run_code, list_partitions, prompts.")
    serve_arguments(p)
    p.set_defaults(func=_cmd_serve)
    return ap


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "passthrough", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr)
    keep_new_files_private()  # configs, traces, runs, logs: owner-only, in every process it starts too
    try:
        return args.func(args, extra)
    except LakeError as exc:  # a lake or config that cannot be used: a sentence, not a traceback
        print(f"lakeboard {args.command}: {printable(exc, 4000)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line, the shell's code for it
        print(f"lakeboard {args.command}: interrupted", file=sys.stderr)
        return 130


def run() -> NoReturn:
    """The `lakeboard` console entry: `main()`, then exit without interpreter teardown
    (the output is written, traces are closed and every helper is stopped by then)."""
    exit_now(main())


if __name__ == "__main__":
    run()
