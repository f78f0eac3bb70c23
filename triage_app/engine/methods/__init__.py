"""The scoring methods, one file each, and their registry (registry.py): how a label's score is read
from the model. What a method is: base.py.
"""
