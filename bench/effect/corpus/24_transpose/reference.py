def transpose(matrix):
    """Return the transpose of a non-empty rectangular matrix given as a list of rows."""
    return [[row[i] for row in matrix] for i in range(len(matrix[0]))]
