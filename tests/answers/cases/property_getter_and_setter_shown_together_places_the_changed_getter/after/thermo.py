class Thermometer:
    def __init__(self):
        self._kelvin = 273.15

    @property
    def celsius(self):
        return self._kelvin - 273.15

    @celsius.setter
    def celsius(self, value):
        self._kelvin = value + 273.15
