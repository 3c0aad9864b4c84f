"""Search agent: an MCP server that answers general-knowledge requests on the blackboard.

Backends: `local` (a folder of HTML, Markdown, text and PDF documents indexed offline; the
default), `searxng`, `google` and `brave` (web search APIs; result pages fetched behind an
SSRF guard). See README.md in this folder for the command line and configuration.
"""

from servers.search_agent.agent import SearchAgent
from servers.search_agent.server import build_server
from servers.search_agent.settings import SearchAgentSettings, resolve_settings

__all__ = ["SearchAgent", "SearchAgentSettings", "build_server", "resolve_settings"]
