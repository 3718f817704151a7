from prog import average_score


def test_average_score():
    students = [{"name": "Ada", "score": 90}, {"name": "Bob", "score": 70}]
    assert average_score(students) == 80
