import asyncio


async def poll(source, tries):
    for _ in range(tries):
        value = await source.read()
        if value:
            return value
        await asyncio.sleep(0.1)
    return None
