class ValidationError(Exception):
    def __init__(self, field, message):
        super().__init__(message)
        self.field = field
        self.message = message

    def describe(self):
        return f"{self.field}: {self.message}"


def check(value):
    if not value:
        raise ValidationError("value", "empty")
