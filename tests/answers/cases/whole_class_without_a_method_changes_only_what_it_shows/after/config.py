import json


class Config:
    def __init__(self, path):
        self.path = path
        self.data = {}

    def load(self):
        with open(self.path) as fh:
            self.data = json.load(fh)

    def get(self, key, default=None):
        return self.data.get(key, default)

    def save(self):
        with open(self.path, "w") as fh:
            json.dump(self.data, fh)
