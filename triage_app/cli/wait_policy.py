"""How the command line's OpenMP threads wait: ACTIVE on a quiet machine, PASSIVE otherwise.

A batch run from the command line has the CPU to itself only where nothing else runs. There, threads
that spin while they wait (ACTIVE) were a little faster than sleeping ones (PASSIVE); where other work
shared the cores, spinning made the same run several times slower (docs/bench/omp_wait.txt). So the
machine's load is read once, as the command starts: quiet, ACTIVE; busy, PASSIVE (the package's
default, triage_app/__init__.py). OpenMP reads the variable once, when torch is imported, so this
runs before any command imports it; a policy the user set is never changed. The window never comes
here: it always shares its cores with its own UI thread and retrains.
"""

from __future__ import annotations

import os
import sys

# 1-minute load average per core under which the machine counts as quiet: well under one busy core
QUIET_LOAD_PER_CORE = 0.25


def chosen(load: float, cores: int) -> str:
    """ACTIVE where the other work on the machine leaves every core free, PASSIVE otherwise."""
    return "ACTIVE" if load <= QUIET_LOAD_PER_CORE * max(cores, 1) else "PASSIVE"


def apply() -> str | None:
    """Set OMP_WAIT_POLICY for this command; the policy set, or None where it was not ours to set (the
    user's own, or torch already imported, whose OpenMP has read it)."""
    import triage_app

    if triage_app.WAIT_POLICY_GIVEN or "torch" in sys.modules or not hasattr(os, "getloadavg"):
        return None
    os.environ["OMP_WAIT_POLICY"] = policy = chosen(os.getloadavg()[0], os.cpu_count() or 1)
    return policy
