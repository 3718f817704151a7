import asyncio


class Client:
    def __init__(self, session):
        self.session = session

    async def fetch(self, url):
        response = await self.session.get(url)
        return response.text

    def close(self):
        self.session.close()


async def main(client):
    return await asyncio.gather(client.fetch("a"), client.fetch("b"))
