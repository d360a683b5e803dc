"""Adapters to other frameworks (each imports its framework only when used)."""
