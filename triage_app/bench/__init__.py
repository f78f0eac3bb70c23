"""Benchmarks: what `triage-app bench` measures, on the product's own parts, side by side in one run.
Numbers live in docs/bench/, never here.
"""
