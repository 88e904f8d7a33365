# An asyncio server that keeps each request's line, a copy of it per
# byte of the request number, so no two leaked values are one size. It
# takes a snapshot after each of three rounds of requests and prints
# what the round between the first two snapshots left behind:
# {"count": ..., "bytes": the sum of sys.getsizeof of those values}.
import asyncio
import json
import os
import sys

import heapscope

sessions = {}


async def handle(reader, writer):
    line = await reader.readline()
    sessions[len(sessions)] = line * (1 + len(sessions) % 7)
    writer.write(b"ok\n")
    await writer.drain()
    writer.close()


async def request(port, i):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /%d\n" % i)
    await writer.drain()
    await reader.readline()
    writer.close()
    await writer.wait_closed()


async def main(out, rounds, per_round):
    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=512)
    port = server.sockets[0].getsockname()[1]
    left = None
    for k, name in enumerate(rounds):
        before = len(sessions)
        await asyncio.gather(*[request(port, i) for i in range(per_round)])
        if k == 1:
            left = [sys.getsizeof(sessions[i]) for i in range(before, len(sessions))]
        heapscope.snapshot(os.path.join(out, name + ".pysnap"))
    server.close()
    await server.wait_closed()
    return left


left = asyncio.run(main(sys.argv[1], ["baseline", "target", "final"], 120))
print(json.dumps({"count": len(left), "bytes": sum(left)}))
