import asyncio


async def run(job):
    result = await job.start(
    return result.value


def stop(job):
    job.cancel()
