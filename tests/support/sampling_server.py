"""A tiny fastmcp server whose tool borrows the client's model through MCP sampling.

Run over stdio: `python -m tests.support.sampling_server` (or the file path). fastmcp 4 has
no `ctx.sample`: server-initiated sampling is handshake-era only, reached through the SDK
session, so the client must connect with `mode="legacy"`.
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


@mcp.tool
async def ask(
    question: str,
    ctx: Context,
    system_prompt: str | None = None,
    temperature: float | None = None,
    max_tokens: int = 256,
    history: list[str] | None = None,
) -> Sampled:
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sampling is deprecated in MCP 2026-07-28, still served in legacy mode
        result = await ctx.session.create_message(
            messages=messages,
            max_tokens=max_tokens,
            system_prompt=system_prompt,
            temperature=temperature,
            related_request_id=ctx.request_id,
        )
    text = result.content.text if isinstance(result.content, mcp_types.TextContent) else ""
    return Sampled(text=text, model=result.model, stop_reason=result.stop_reason)


if __name__ == "__main__":
    mcp.run(show_banner=False)
