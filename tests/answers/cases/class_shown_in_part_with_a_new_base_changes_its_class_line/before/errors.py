class ValidationError:
    def __init__(self, field, message):
        self.field = field
        self.message = message

    def describe(self):
        return f"{self.field}: {self.message}"


def check(value):
    if not value:
        raise ValidationError("value", "empty")
