class Circle:
    def __init__(self, r):
        self.r = r

    @property
    def area(self):
        return 3.14159 * self.r

    @staticmethod
    def unit():
        return Circle(1)
