"""A tiny fastmcp server whose tool borrows the client's model through MCP sampling.

Run over stdio: `python tests/support/sampling_server.py`. fastmcp 4 has no `ctx.sample`;
the tool asks the way each protocol era allows:
- handshake era (client `mode="legacy"`): a server-initiated `sampling/createMessage`
  through the SDK session while the call is open;
- 2026-07-28 era (client `mode="auto"`): no back-channel, so the tool returns an
  `InputRequiredResult` carrying the sampling request, and the client (fastmcp's driver,
  using the same sampling handler) calls the tool again with the completion (SEP-2322).
"""

from __future__ import annotations

import warnings

import mcp_types
from fastmcp import Context, FastMCP
from pydantic import BaseModel

mcp = FastMCP("sampling-probe")


class Sampled(BaseModel):
    text: str
    model: str
    stop_reason: str | None
    era: str  # "handshake" or "2026"


@mcp.tool
async def ask(
    question: str,
    ctx: Context,
    system_prompt: str | None = None,
    temperature: float | None = None,
    max_tokens: int = 256,
    history: list[str] | None = None,
) -> Sampled | mcp_types.InputRequiredResult:
    """Ask the client's model `question` (after optional alternating user/assistant `history`)."""
    turns = [*(history or []), question]
    # The question is the last user turn; roles alternate backwards from it.
    messages = [
        mcp_types.SamplingMessage(
            role="user" if (len(turns) - 1 - i) % 2 == 0 else "assistant",
            content=mcp_types.TextContent(type="text", text=t),
        )
        for i, t in enumerate(turns)
    ]
    if ctx.session.can_send_request:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sampling is deprecated in the 2026 era, still served before it
            result = await ctx.session.create_message(
                messages=messages,
                max_tokens=max_tokens,
                system_prompt=system_prompt,
                temperature=temperature,
                related_request_id=ctx.request_id,
            )
        era = "handshake"
    else:
        answered = (ctx.input_responses or {}).get("completion")
        if answered is None:
            request = mcp_types.CreateMessageRequest(
                params=mcp_types.CreateMessageRequestParams(
                    messages=messages, max_tokens=max_tokens, system_prompt=system_prompt, temperature=temperature
                )
            )
            return mcp_types.InputRequiredResult(input_requests={"completion": request}, request_state="asked")
        result, era = answered, "2026"
    text = result.content.text if isinstance(result.content, mcp_types.TextContent) else ""
    return Sampled(text=text, model=result.model, stop_reason=result.stop_reason, era=era)


if __name__ == "__main__":
    mcp.run(show_banner=False)
