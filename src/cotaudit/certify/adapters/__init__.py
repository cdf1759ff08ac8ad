"""Adapters (certify.md §13): deterministic front ends that turn a data set into units and queries."""

__all__: list[str] = []
