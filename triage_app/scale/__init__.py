"""Scale-out: the same engine and guarantees on a Ray cluster (optional: pip install triage-app[ray]).

Nothing here is imported by the app or the local command; Ray is imported only when a Ray run starts.
"""
