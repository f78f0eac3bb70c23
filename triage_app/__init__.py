"""Triage: classify support tickets on your own machine with a small language model."""

import os

# torch's and scikit-learn's OpenMP threads spin while they wait for work, and the app always shares
# its cores (the UI thread, retrains, other programs): spinning made runs several times slower there,
# waiting passively cost far less where the CPU had room (docs/bench/omp_wait.txt). OpenMP reads this
# once, when torch is imported, so it is set here, before any entry point imports torch; a user's own
# setting wins. The command line alone may choose ACTIVE on a quiet machine (cli/wait_policy.py).
WAIT_POLICY_GIVEN = "OMP_WAIT_POLICY" in os.environ
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"
