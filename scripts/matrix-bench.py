#!/usr/bin/env python3
"""The client side of `parley-bench matrix`: a matrix-nio user drives a Parley bot, or a bare
HTTP client measures how fast Synapse itself creates events (the ceiling).

    matrix-bench.py bot     --homeserver URL --secret S --admin-token T --bot @support:localhost [--result-file F] [--encrypted]
    matrix-bench.py reference --homeserver URL --user @ref:localhost --token T [--seconds 900] [--ready-file F]
    matrix-bench.py ceiling --homeserver URL --token T --rooms-file FILE --count 5000 [--result-file F]

`bot` prints one line per figure: command round trip p50/p99 one at a time, a 300-command burst
in one room (all answered, time to last reply), 20 rooms x 30 commands at once (replies/s).
The bot must run bots/support.yaml (its order trigger answers "Looking up order N for you, NAME."):
every answer's text is compared with that, NAME the driver's display name.
With --encrypted the driver is a matrix-nio client with end-to-end encryption (vodozemac, its
store in a temporary folder) and every room it creates is encrypted (m.megolm.v1.aes-sha2):
it waits for the bot to join before its first message there (so the room key reaches the bot's
device), and an answer it cannot decrypt by the end of the drive is a failure.
`reference` is the yardstick bot: matrix-nio, answering the order trigger one at a time.
`ceiling` sends COUNT plain messages round-robin over the rooms with 16 requests in flight.
Every wait is bounded. Run with the venv's python of scripts/synapse.
"""
import argparse
import asyncio
import json
import re
import shutil
import statistics
import tempfile
import time
import urllib.parse
import uuid

import aiohttp
from nio import AsyncClient, AsyncClientConfig, MegolmEvent, RoomCreateResponse, RoomPreset, SyncResponse
from nio.exceptions import EncryptionError

import parley_synapse as synapse

ORDER = re.compile(r"Looking up order ([0-9]{6}) ")
ENCRYPTION = {"type": "m.room.encryption", "state_key": "", "content": {"algorithm": "m.megolm.v1.aes-sha2"}}


class Driver:
    """One nio user; a background sync resolves a future per awaited order number. With
    `encrypted`, nio decrypts the bot's answers as they come (an answer whose room key has not
    arrived yet is tried again after each later sync) and keeps its device keys up."""

    def __init__(self, client, bot, name, encrypted=False):
        self.client = client
        self.bot = bot
        self.name = name  # the display name the bot greets and answers with
        self.encrypted = encrypted
        self.waiting = {}  # order number -> future
        self.answers = {}  # order number -> count
        self.wrong = []  # answers whose text is not the expected one
        self.undecrypted = []  # (room id, MegolmEvent) from the bot, not decryptable yet
        self.joined = set()  # rooms the bot has joined
        self.since = None
        self.task = None

    async def sync_loop(self):
        while True:
            response = await self.client.sync(timeout=30000, since=self.since,
                                              sync_filter={"room": {"timeline": {"limit": 500}}})
            if not isinstance(response, SyncResponse):
                await asyncio.sleep(0.2)
                continue
            self.since = response.next_batch
            now = time.monotonic()
            for room_id, room in response.rooms.join.items():
                for event in list(room.state) + list(room.timeline.events):
                    if isinstance(event, MegolmEvent):
                        if event.sender == self.bot:
                            self.undecrypted.append((room_id, event))
                        continue
                    self.handle(room_id, event.source, now)
            if self.encrypted:
                self.retry_undecrypted(now)
                await self.keep_keys()

    def handle(self, room_id, source, now):
        if source.get("sender") != self.bot:
            return
        if source.get("type") == "m.room.member" and source.get("state_key") == self.bot \
                and source.get("content", {}).get("membership") == "join":
            self.joined.add(room_id)
        if source.get("type") != "m.room.message":
            return
        body = source.get("content", {}).get("body", "")
        match = ORDER.search(body)
        if not match:
            return
        number = match.group(1)
        if body != f"Looking up order {number} for you, {self.name}.":
            self.wrong.append(body)
        self.answers[number] = self.answers.get(number, 0) + 1
        future = self.waiting.pop(number, None)
        if future and not future.done():
            future.set_result(now)

    def retry_undecrypted(self, now):
        """Answers whose key came in a later sync (their round trip ends now)."""
        pending, self.undecrypted = self.undecrypted, []
        for room_id, event in pending:
            try:
                decrypted = self.client.decrypt_event(event)
            except EncryptionError:
                self.undecrypted.append((room_id, event))
                continue
            self.handle(room_id, decrypted.source, now)

    async def keep_keys(self):
        """One-time keys topped up, and the devices of the rooms' members queried (as
        sync_forever would)."""
        if self.client.should_upload_keys:
            await self.client.keys_upload()
        if self.client.should_query_keys:
            await self.client.keys_query()

    async def start(self):
        first = await self.client.sync(timeout=0)
        self.since = first.next_batch
        if self.encrypted:
            await self.keep_keys()
        self.task = asyncio.create_task(self.sync_loop())

    async def room(self, direct):
        kwargs = {"is_direct": True, "preset": RoomPreset.trusted_private_chat} if direct else {"preset": RoomPreset.private_chat}
        if self.encrypted:
            kwargs["initial_state"] = [ENCRYPTION]
        created = await self.client.room_create(invite=[self.bot], **kwargs)
        if not isinstance(created, RoomCreateResponse):
            raise RuntimeError(f"cannot create a room: {created}")
        if self.encrypted:
            # The room key goes to the members' devices nio knows when it first sends: wait
            # for the bot's join (bounded), then make sure its devices are queried.
            deadline = time.monotonic() + 60
            while created.room_id not in self.joined:
                if time.monotonic() > deadline:
                    raise synapse.SetupFailed(f"{self.bot} did not join {created.room_id} within 60 s")
                await asyncio.sleep(0.05)
            if self.client.should_query_keys:
                await self.client.keys_query()
        return created.room_id

    def expect(self, number):
        future = asyncio.get_running_loop().create_future()
        self.waiting[number] = future
        return future

    async def order(self, room, number):
        await self.client.room_send(room, "m.room.message", {"msgtype": "m.text", "body": f"where is order {number}?"},
                                    tx_id=str(uuid.uuid4()), ignore_unverified_devices=True)


async def bot_figures(args):
    name, password = synapse.new_account("bench-", digits=8)
    user = synapse.register(args.homeserver, args.secret, name, password)
    synapse.set_rate_limit(args.homeserver, args.admin_token, user)
    store = tempfile.mkdtemp(prefix="matrix-bench-nio-") if args.encrypted else None
    config = AsyncClientConfig(encryption_enabled=True, store_sync_tokens=True) if args.encrypted else None
    client = AsyncClient(args.homeserver, user, store_path=store or "", config=config)
    await synapse.nio_login(client, password)
    if args.encrypted and client.should_upload_keys:
        await client.keys_upload()
    profile = await client.get_displayname(user)
    driver = Driver(client, args.bot, getattr(profile, "displayname", None) or user, encrypted=args.encrypted)
    await driver.start()
    cpu = time.process_time()  # the driver's own CPU (nio, and with --encrypted its crypto)
    counter = iter(range(100000, 999999))
    try:
        # Warm up: the bot joins, greets, answers once.
        room = await driver.room(direct=True)
        number = str(next(counter))
        future = driver.expect(number)
        await driver.order(room, number)
        await asyncio.wait_for(future, 60)

        # 1. Round trip, one command at a time.
        latencies = []
        for _ in range(args.latency_count):
            number = str(next(counter))
            future = driver.expect(number)
            began = time.monotonic()
            await driver.order(room, number)
            answered = await asyncio.wait_for(future, 30)
            latencies.append((answered - began) * 1000)
        latencies.sort()
        p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
        p50 = statistics.median(latencies)
        print(f"{args.label} round trip: p50 {p50:.0f} ms, p99 {p99:.0f} ms "
              f"({len(latencies)} commands one at a time)", flush=True)

        # 2. A burst in one room.
        numbers = [str(next(counter)) for _ in range(args.burst)]
        futures = [driver.expect(n) for n in numbers]
        began = time.monotonic()
        for n in numbers:
            await driver.order(room, n)
        done, pending = await asyncio.wait(futures, timeout=300)
        last = max((f.result() for f in done), default=began)
        burst = len(done) / max(last - began, 1e-9)
        lost = len(pending)
        print(f"{args.label} burst: {len(done)}/{len(numbers)} answered in one room, last reply after {last - began:.1f} s "
              f"({burst:.1f} replies/s)", flush=True)

        # 3. Many rooms at once.
        rooms = [await driver.room(direct=False) for _ in range(args.rooms)]
        for r in rooms:  # each room: the bot joins (and greets); wait for one answer per room
            n = str(next(counter))
            f = driver.expect(n)
            await driver.order(r, n)
            await asyncio.wait_for(f, 60)
        per_room = [[str(next(counter)) for _ in range(args.per_room)] for _ in rooms]
        futures = [driver.expect(n) for ns in per_room for n in ns]

        async def drive(r, ns):
            for n in ns:
                await driver.order(r, n)

        began = time.monotonic()
        await asyncio.gather(*(drive(r, ns) for r, ns in zip(rooms, per_room)))
        done, pending = await asyncio.wait(futures, timeout=300)
        last = max((f.result() for f in done), default=began)
        multi_room = len(done) / max(last - began, 1e-9)
        lost += len(pending)
        print(f"{args.label} multi-room: {len(done)}/{len(futures)} answered in {args.rooms} rooms x {args.per_room}, "
              f"{len(done) / max(last - began, 1e-9):.1f} replies/s (last after {last - began:.1f} s)", flush=True)

        await asyncio.sleep(2)  # late duplicates (and late room keys) would show up here
        twice = sum(1 for c in driver.answers.values() if c > 1)
        wrong, undecrypted = len(driver.wrong), len(driver.undecrypted)
        print(f"{args.label} answers: {len(driver.answers)} orders answered, {twice} answered more than once, "
              f"{wrong} with a wrong text{f' (first: {driver.wrong[0]!r})' if wrong else ''}"
              f"{f', {undecrypted} not decryptable' if args.encrypted else ''}", flush=True)
        if args.result_file:
            with open(args.result_file, "w") as f:
                json.dump({"answered": len(driver.answers), "twice": twice, "lost": lost, "wrong": wrong,
                           "undecrypted": undecrypted, "p50": p50, "p99": p99, "burst": burst,
                           "multi_room": multi_room,
                           "driver_cpu_ms": (time.process_time() - cpu) / max(len(driver.answers), 1) * 1000}, f)
        return 0 if twice == 0 and lost == 0 and wrong == 0 and undecrypted == 0 else 1
    finally:
        driver.task and driver.task.cancel()
        await client.close()
        if store:
            shutil.rmtree(store, ignore_errors=True)


async def ceiling(args):
    with open(args.rooms_file) as f:
        rooms = [line.strip() for line in f if line.strip()]
    base = args.homeserver.rstrip("/")
    headers = {"Authorization": f"Bearer {args.token}"}
    queue = asyncio.Queue()
    for i in range(args.count):
        queue.put_nowait(i)
    errors = 0

    async def worker(session):
        nonlocal errors
        while True:
            try:
                i = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            room = urllib.parse.quote(rooms[i % len(rooms)])
            url = f"{base}/_matrix/client/v3/rooms/{room}/send/m.room.message/{uuid.uuid4()}"
            async with session.put(url, json={"msgtype": "m.text", "body": f"ceiling {i}"}, headers=headers,
                                   timeout=aiohttp.ClientTimeout(total=60)) as answer:
                if answer.status != 200:
                    errors += 1
                await answer.read()

    began = time.monotonic()
    async with aiohttp.ClientSession() as session:
        await asyncio.gather(*(worker(session) for _ in range(args.concurrency)))
    seconds = time.monotonic() - began
    print(f"matrix ceiling: bare HTTP client created {args.count} events in {len(rooms)} rooms in {seconds:.1f} s: "
          f"{args.count / seconds:.0f} events/s ({errors} errors, {args.concurrency} in flight)", flush=True)
    if args.result_file:
        with open(args.result_file, "w") as f:
            f.write(f"{args.count / seconds}\n")
    return 0 if errors == 0 else 1


async def reference_bot(args):
    """The yardstick: a hand-written matrix-nio bot that answers the order trigger one message
    at a time (await each send), as a small Python bot would. Runs for --seconds at most."""
    client = AsyncClient(args.homeserver, args.user)
    client.access_token = args.token
    client.user_id = args.user
    names = {}
    first = await client.sync(timeout=0, sync_filter={"room": {"timeline": {"limit": 0}}})
    since = first.next_batch
    if args.ready_file:  # started and synced: the bench measures its CPU from here
        with open(args.ready_file, "w") as f:
            f.write("ready\n")
    deadline = time.monotonic() + args.seconds
    try:
        while time.monotonic() < deadline:
            response = await client.sync(timeout=30000, since=since, sync_filter={"room": {"timeline": {"limit": 500}}})
            if not isinstance(response, SyncResponse):
                await asyncio.sleep(0.2)
                continue
            since = response.next_batch
            for room_id in response.rooms.invite:
                await client.join(room_id)
            for room_id, room in response.rooms.join.items():
                for event in room.timeline.events:
                    source = event.source
                    sender = source.get("sender")
                    if sender == args.user or source.get("type") != "m.room.message":
                        continue
                    match = re.search(r"(?i)\border (?P<number>[0-9]{6})\b", source.get("content", {}).get("body", ""))
                    if not match:
                        continue
                    if sender not in names:
                        profile = await client.get_displayname(sender)
                        names[sender] = getattr(profile, "displayname", None) or sender
                    await client.room_send(room_id, "m.room.message", {
                        "msgtype": "m.text", "body": f"Looking up order {match.group('number')} for you, {names[sender]}."})
    finally:
        await client.close()
    return 0


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["bot", "ceiling", "reference"])
    synapse.add_homeserver_arguments(parser, secret_required=False)
    parser.add_argument("--admin-token")
    parser.add_argument("--bot")
    parser.add_argument("--token")
    parser.add_argument("--user", help="reference: the bot's user id (with --token)")
    parser.add_argument("--seconds", type=float, default=900, help="reference: stop after this long")
    parser.add_argument("--ready-file", help="reference: written once the first sync is done")
    parser.add_argument("--rooms-file")
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--result-file", help="also write the figures to this file (ceiling: events/s; bot: JSON)")
    parser.add_argument("--label", default="matrix", help="bot: the first word of each line")
    parser.add_argument("--encrypted", action="store_true", help="bot: encrypted rooms, a nio client with E2EE")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency-count", type=int, default=100)
    parser.add_argument("--burst", type=int, default=300)
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--per-room", type=int, default=30)
    args = parser.parse_args()
    runs = {"bot": bot_figures, "ceiling": ceiling, "reference": reference_bot}
    return await runs[args.mode](args)


if __name__ == "__main__":
    synapse.run_main(main)
