"""The command line's OpenMP wait policy: ACTIVE on a quiet machine, PASSIVE on a busy one, the user's own kept."""

import os
import subprocess
import sys

import pytest

from triage_app.cli import wait_policy

PROBE = ("import os, sys; from triage_app.cli import main, wait_policy; "
         "wait_policy.QUIET_LOAD_PER_CORE = float(sys.argv[2]); main(['inspect', sys.argv[1]]); "
         "print(os.environ['OMP_WAIT_POLICY'], 'torch' in sys.modules)")


@pytest.mark.parametrize("load, cores, policy", [(0.0, 2, "ACTIVE"), (0.5, 2, "ACTIVE"), (0.51, 2, "PASSIVE"),
                                                 (2.0, 2, "PASSIVE"), (1.9, 8, "ACTIVE"), (3.0, 8, "PASSIVE")])
def test_quiet_is_active_and_busy_is_passive(load, cores, policy):
    assert wait_policy.chosen(load, cores) == policy


def _policy_seen(tmp_path, env_policy, quiet_below=0.25):
    tickets = tmp_path / "t.csv"
    tickets.write_text("text\nmy card never came\n")
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if env_policy:
        env["OMP_WAIT_POLICY"] = env_policy
    out = subprocess.run([sys.executable, "-c", PROBE, str(tickets), str(quiet_below)], env=env, capture_output=True, text=True,
                         check=True, timeout=120)
    return out.stdout.split()[-2:]


@pytest.mark.parametrize("given", ["ACTIVE", "PASSIVE"])
def test_a_policy_the_user_set_is_kept(tmp_path, given):
    assert _policy_seen(tmp_path, given) == [given, "False"]


def test_a_command_chooses_before_torch_is_imported(tmp_path):
    # any load counts as quiet, then none does: the command's own choice, whatever this machine's load
    assert _policy_seen(tmp_path, None, quiet_below=1e9) == ["ACTIVE", "False"]
    assert _policy_seen(tmp_path, None, quiet_below=-1) == ["PASSIVE", "False"]


def test_the_window_and_the_package_keep_passive_unless_told():
    out = subprocess.run([sys.executable, "-c", "import os, triage_app; print(os.environ['OMP_WAIT_POLICY'])"],
                         env={k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"},
                         capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == ["PASSIVE"]


def test_reading_the_command_line_loads_no_openmp_library():
    """The policy is set after the arguments are read: reading them must load neither torch nor scikit-learn
    (whose OpenMP reads the policy once), and --help stays fast."""
    probe = ("import sys; from triage_app.cli.parser import build_parser; build_parser(); "
             "print(sorted(m for m in ('torch', 'sklearn', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == ["[]"]
