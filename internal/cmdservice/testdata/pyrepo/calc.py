"""A tiny calculator the end-to-end tests change."""


def add(a, b):
    return a + b


def sub(a, b):
    return a - b
