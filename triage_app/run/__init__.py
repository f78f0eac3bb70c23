"""A run: which fields share a pass, what is resumed from the store, the checked precision and the
rows settled in float32 afterwards. The command line and the window both run through here.
"""
