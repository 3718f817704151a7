from prog import Stack


def test_stack():
    stack = Stack()
    for item in (1, 2, 3):
        stack.push(item)
    assert stack.pop() == 3
    assert stack.pop() == 2
