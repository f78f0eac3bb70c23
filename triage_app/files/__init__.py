"""Ticket files in, result files out. No Qt, no tensors."""
