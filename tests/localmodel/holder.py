"""Another rune-lsp, for the tests that need two processes sharing (or orphaning) a server.

`python -m tests.localmodel.holder PLAN_JSON` provisions the plan (fields of `LocalPlan`, the
paths as strings), prints `{"pid": …, "port": …}` of the server it leased, then waits for a
line on stdin: `release` gives the lease back and prints `{"outcome": …, "message": …}`.
Killed with SIGKILL, it gives nothing back, as a crashed editor's server would not.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

from rune_lsp.localmodel.progress import Cancel, no_progress
from rune_lsp.localmodel.provision import LocalPlan, provision
from rune_lsp.modelfetch import CATALOGUE


def plan_json(plan: LocalPlan) -> str:
    fields = asdict(plan)
    fields.update(model=plan.model.name, state_dir=str(plan.state_dir), cache=str(plan.cache))
    return json.dumps(fields)


def main() -> int:
    fields = json.loads(sys.argv[1])
    fields.update(
        model=CATALOGUE[fields["model"]],
        state_dir=Path(fields["state_dir"]),
        cache=Path(fields["cache"]),
    )
    lease = provision(LocalPlan(**fields), progress=no_progress, cancel=Cancel())
    print(json.dumps({"pid": lease.record.pid, "port": lease.record.port}), flush=True)
    for line in sys.stdin:
        if line.strip() == "release":
            released = lease.release()
            print(json.dumps({"outcome": released.outcome, "message": released.message}))
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
