"""A user callback the hpgraph compiler refuses (a loop over a list is not supported)."""


def bad_op(x, y):
    total = 0
    for v in [x, y]:
        total += v
    return total
