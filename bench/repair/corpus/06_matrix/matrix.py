def shape(m):
    return len(m), len(m[0]) if m else 0


def transpose(m):
    rows, cols = shape(m)
    return [[m[r][c] for r in range(rows)] for c in range(cols)]


def matmul(a, b):
    """Product of two matrices given as lists of rows."""
    n, k = shape(a)
    k2, p = shape(b)
    if k != k2:
        raise ValueError("shapes do not match")
    result = [[0] * p for _ in range(n)]
    for i in range(n):
        for j in range(p):
            total = 0
            for x in range(k):
                total = a[i][x] * b[x][j]
            result[i][j] = total
    return result
