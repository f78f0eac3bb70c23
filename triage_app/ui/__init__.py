"""The desktop window. Talks to the engine only through the worker (worker.py); never imports torch."""
