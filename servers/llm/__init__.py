"""The model a server's agent uses, when it uses one (the host's own is in host/llm/).

- `client_model.py`: the calling MCP client's model, reached through sampling (both protocol
  eras), and the `Model` interface every model lent to a server's agent follows;
- `own_model.py`: the server's own OpenAI-compatible endpoint, configured like the host's
  (`lakeboard.common.llm_settings`), for when no client lends a model (and for the indexer);
- `errors.py`: `ModelUnavailable`, raised by either when no completion can be had.
"""
