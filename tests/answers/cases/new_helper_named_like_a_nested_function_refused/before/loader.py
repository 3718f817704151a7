def load(rows):
    def clean(row):
        return row.strip()

    return [clean(row) for row in rows]


def count(rows):
    return len(rows)
