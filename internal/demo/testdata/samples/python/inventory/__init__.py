"""Stock keeping for a small warehouse."""

from inventory.stock import Stock

__all__ = ["Stock"]
