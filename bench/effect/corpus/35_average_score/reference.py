def average_score(students):
    """Return the mean "score" of a non-empty list of student records like
    {"name": "Ada", "score": 90}."""
    total = 0
    for student in students:
        total += student["score"]
    return total / len(students)
