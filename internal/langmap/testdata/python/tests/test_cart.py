from shop.core.cart import Cart, add


def test_add():
    assert add(1, 2) == 3
