class Slug:
    @staticmethod
    def normalize(text):
        return text.lower()


def slugify(text):
    return Slug.normalize(text).replace(" ", "_")
