def load(rows):
    def clean(row):
        return row.strip().lower()

    return [clean(row) for row in rows]
