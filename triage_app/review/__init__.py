"""The review loop's state, no Qt: the answers of a file and the labels a person gave it."""
