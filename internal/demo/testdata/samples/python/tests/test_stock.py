from inventory import Stock


def test_add_then_count():
    s = Stock()
    s.add("bolt", 3)
    assert s.count("bolt") == 3


def test_remove_some():
    s = Stock()
    s.add("bolt", 3)
    s.remove("bolt", 2)
    assert s.count("bolt") == 1
