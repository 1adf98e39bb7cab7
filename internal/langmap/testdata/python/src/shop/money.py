class Money(int):
    pass
