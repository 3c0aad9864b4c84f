"""`python -m tests.support.run_context ARGS`: print how it was run, then echo stdin to stdout.

The fork server's tests run it to see the argv, working directory, environment and
descriptors a forked module gets.
"""

from __future__ import annotations

import json
import os
import sys

if __name__ == "__main__":
    print("run_context on stderr", file=sys.stderr, flush=True)
    context = {"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ), "pid": os.getpid(),
               "sid": os.getsid(0), "main": __name__,
               # which servers' heavy modules came preloaded from the fork server it was forked from
               "preloaded": sorted(m for m in ("fastmcp", "lakeboard.servers.file_agent.server",
                                               "lakeboard.servers.search_agent.server",
                                               "lakeboard.servers.kernel.server") if m in sys.modules)}
    print(json.dumps(context), flush=True)
    for line in sys.stdin:
        if line.strip() == "fail":
            raise RuntimeError("failed on request")
        print(f"echo {line.strip()}", flush=True)
