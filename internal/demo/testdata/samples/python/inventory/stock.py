"""Counts of items on hand."""


class Stock:
    """Counts how many of each item is on hand."""

    def __init__(self):
        self._counts = {}

    def add(self, item, qty):
        """Adds qty of item."""
        if qty <= 0:
            raise ValueError("qty must be positive")
        self._counts[item] = self._counts.get(item, 0) + qty

    def remove(self, item, qty):
        """Removes qty of item."""
        self._counts[item] = self._counts.get(item, 0) - qty

    def count(self, item):
        """Returns how many of item is on hand."""
        return self._counts.get(item, 0)
