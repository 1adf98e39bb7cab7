"""Cart module.

def not_a_function(): this is a docstring, not code
class NotAClass:
"""
import os, sys as system
from typing import (
    Optional,
    List,
)
from .. import money
from ..money import Money

MAX_ITEMS = 100
_registry: dict[str, int] = {}
TEMPLATE = '''
def also_not_code():
    pass
'''


@dataclass(frozen=True)
class Item:
    name: str  # def commented(): no
    price: "Money"

    def total(self, qty: int = 1) -> "Money":
        s = "def inner(): not a method"
        return self.price * qty

    class Meta:
        ordering = ["name"]

        def deep(self):
            pass

    @property
    def label(self) -> str:
        return f"{self.name}: {self.price}"


class Cart(Base, metaclass=Registry):
    def __init__(self, items: Optional[List[Item]] = None,
                 owner: str = "anon",
                 *, currency="EUR") -> None:
        self.items = items or []

    async def checkout(self) -> bool: return True


def add(a: int,
        b: int) -> int:
    """def not_this(): docstring"""
    x = a + \
        b
    return x


async def fetch(url):
    import json
    return json


if __name__ == "__main__":
    def hidden():
        pass
