"""The main agent's five actions as OpenAI function tools, where the endpoint supports them.

With tools, a program travels as the `code` argument of a `run_code` or `answer` call, so the
model writes code as code rather than as a string escaped inside a JSON reply. Endpoints
without tool support answer a request that offers tools with an error that names them
(`tools_unsupported`); the main agent then switches the run to the JSON-in-text protocol,
and `as_text_protocol` rewrites the conversation so far into it.
"""

from __future__ import annotations

import json
from typing import Any

from lakeboard.common.json_replies import JSONReplyError, extract_json_object
from lakeboard.host.llm import ChatMessage, LLMError, LLMRequestError, ToolCall

ACTION_NAMES = ("plan", "reason", "request_help", "run_code", "answer")

_STRING = {"type": "string"}
_PATHS = {"type": "array", "items": _STRING, "description": "lake files, relative to the lake"}


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": name,
        "description": description,
        "parameters": {"type": "object", "properties": properties, "required": required},
    }}


TOOLS: list[dict[str, Any]] = [
    _tool("plan", "Write or revise your plan for answering the question: its steps and the data each one needs.",
          {"thought": _STRING, "plan": {"type": "array", "items": _STRING, "description": "the steps, in order"}},
          ["plan"]),
    _tool("reason", "Think about what you have learned so far and what is still missing.",
          {"reasoning": _STRING}, ["reasoning"]),
    _tool("request_help", "Post a request on the blackboard for data or knowledge that you need, in plain words "
          "(the quantities, the places and the period); do not guess file names.",
          {"request": _STRING, "reason": {"type": "string", "description": "why you need it"}}, ["request"]),
    _tool("run_code", "Run Python code in the kernel; variables persist between runs. Print what you need to see.",
          {"code": {"type": "string", "description": "Python source"}}, ["code"]),
    _tool("answer", "Give the final program and the structured response. The program runs in a fresh kernel, "
          "so it does its own imports, loading and computing; it ends by printing the answer as JSON: "
          'print(json.dumps({"answer": ...})).',
          {"code": {"type": "string", "description": "the complete Python program"},
           "response": {"type": "object", "properties": {
               "data_sources": _PATHS,
               "subtasks": {"type": "array", "items": {"type": "object", "properties": {
                   "id": _STRING, "query": _STRING, "data_sources": _PATHS}}},
           }}},
          ["code"]),
]


def tools_for(help_action: str | None, *, named_helper: bool = False) -> list[dict[str, Any]]:
    """The tools of a mode: request_help described as the mode has it (no such tool when None),
    with a `helper` argument where helpers are asked by name (master-slave)."""
    tools = []
    for tool in TOOLS:
        if tool["function"]["name"] != "request_help":
            tools.append(tool)
        elif help_action is not None:
            properties = dict(tool["function"]["parameters"]["properties"])
            required = ["request"]
            if named_helper:
                properties = {"helper": {"type": "string", "description": "the helper's name, from the list"},
                              **properties}
                required = ["helper", "request"]
            tools.append(_tool("request_help", " ".join(help_action.split()), properties, required))
    return tools


def action_data(call: ToolCall) -> dict[str, Any]:
    """The action a tool call makes, as the JSON object the text protocol would carry.

    JSONReplyError (worded for the model) when the tool is unknown or its arguments are not
    a JSON object.
    """
    if call.name not in ACTION_NAMES:
        raise JSONReplyError(f'"{call.name}" is not a tool; call one of: {", ".join(ACTION_NAMES)}.')
    try:
        arguments = json.loads(call.arguments or "{}")
    except ValueError:
        arguments = extract_json_object(call.arguments)  # raises JSONReplyError with the problem
    if not isinstance(arguments, dict):
        raise JSONReplyError(f"The arguments of {call.name} must be a JSON object.")
    return {**arguments, "action": call.name}


def tools_unsupported(exc: LLMError) -> bool:
    """Whether an endpoint's refusal is about the tools it was offered."""
    if not isinstance(exc, LLMRequestError):
        return False
    text = exc.message.lower()
    return "tool" in text or "function call" in text


def as_text_protocol(messages: list[ChatMessage], system_prompt: str) -> None:
    """Rewrite a tool-protocol conversation, in place, as the JSON-in-text protocol."""
    for i, message in enumerate(messages):
        if i == 0 and message.role == "system":
            messages[i] = ChatMessage(role="system", content=system_prompt)
        elif message.tool_calls:
            actions = []
            for call in message.tool_calls:
                try:
                    actions.append(json.dumps(action_data(call)))
                except JSONReplyError:
                    actions.append(call.arguments)
            messages[i] = ChatMessage(role="assistant", content="\n".join(actions))
        elif message.role == "tool":
            messages[i] = ChatMessage(role="user", content=message.content)
