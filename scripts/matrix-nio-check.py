#!/usr/bin/env python3
"""An independent Matrix client (matrix-nio) that talks to a Parley bot and checks the raw events.

    matrix-nio-check.py check   --homeserver URL --secret S --bot @support:localhost
    matrix-nio-check.py restart --homeserver URL --secret S --bot @support:localhost --restart-cmd "scripts/matrix-synapse-restart 10"

The bot must run the example bot bots/support.yaml and accept invites from anyone.
`check`: the greeting card, a link card and a custom card (msgtype, fields under
`chat.parley.card`, `body` fallback, HTML `formatted_body`), a reaction (`m.annotation` on the
right event with the right key), a reply (`m.in_reply_to` pointing at the command, `m.mentions`).
`restart`: orders sent around a homeserver stop/start are each answered exactly once.
Run with the venv's python of scripts/synapse. Every wait is bounded; exit 0 = all checks passed,
1 = a check failed (the reason on stderr), 2 = setup failed.
"""
import argparse
import asyncio
import json
import shlex
import subprocess
import sys
import time
import uuid

from nio import AsyncClient, RoomCreateResponse, RoomPreset, RoomSendResponse, SyncResponse

import parley_synapse as synapse
from parley_synapse import CheckFailed, SetupFailed, expect


class Conversation:
    """A direct room with the bot; collects the bot's raw events in arrival order."""

    def __init__(self, client, bot):
        self.client = client
        self.bot = bot
        self.room = None
        self.since = None
        self.events = []  # raw events of the bot in self.room
        self.taken = 0

    async def pump(self, timeout_ms=1000):
        try:
            response = await self.client.sync(timeout=timeout_ms, since=self.since,
                                              sync_filter={"room": {"timeline": {"limit": 100}}})
        except Exception as error:  # the homeserver may be down on purpose
            print(f"sync failed: {error}", file=sys.stderr)
            await asyncio.sleep(0.5)
            return
        if not isinstance(response, SyncResponse):
            await asyncio.sleep(0.5)
            return
        self.since = response.next_batch
        room = response.rooms.join.get(self.room) if self.room else None
        if room is None:
            return
        if room.timeline.limited:
            raise CheckFailed("the checker's own sync was limited; raise its timeline limit")
        for event in room.timeline.events:
            source = event.source
            if source.get("sender") == self.bot:
                self.events.append(source)

    async def start(self):
        created = await self.client.room_create(is_direct=True, preset=RoomPreset.trusted_private_chat, invite=[self.bot])
        if not isinstance(created, RoomCreateResponse):
            raise CheckFailed(f"cannot create a direct room with {self.bot}: {created}")
        self.room = created.room_id
        await self.pump(0)
        await self.next_event(lambda e: e.get("type") == "m.room.member" and e.get("state_key") == self.bot
                              and e["content"].get("membership") == "join", "the bot joining the room", seconds=60)

    async def say(self, text):
        response = await self.client.room_send(self.room, "m.room.message", {"msgtype": "m.text", "body": text},
                                               tx_id=str(uuid.uuid4()))
        if not isinstance(response, RoomSendResponse):
            raise CheckFailed(f"cannot send {text!r}: {response}")
        return response.event_id

    async def next_event(self, predicate, what, seconds=30):
        """The next not yet taken bot event that matches (membership changes that don't are skipped)."""
        deadline = time.monotonic() + seconds
        while True:
            while self.taken < len(self.events):
                event = self.events[self.taken]
                self.taken += 1
                if predicate(event):
                    return event
                if event.get("type") == "m.room.member":
                    continue
                raise CheckFailed(f"expected {what}, got {json.dumps(event, ensure_ascii=False)}")
            if time.monotonic() > deadline:
                raise CheckFailed(f"expected {what}: nothing within {seconds} s")
            await self.pump(1000)

    async def next_message(self, what, seconds=30):
        return await self.next_event(lambda e: e.get("type") in ("m.room.message", "m.reaction"), what, seconds)


def check_card(event, card, fields, fallback_contains):
    content = event["content"]
    expect(content.get("msgtype") == f"chat.parley.card.{card}",
           f"msgtype is {content.get('msgtype')!r}, expected chat.parley.card.{card}")
    payload = content.get("chat.parley.card") or {}
    for key, value in fields.items():
        expect(payload.get(key) == value, f"{card} card field {key} is {payload.get(key)!r}, expected {value!r}")
    expect(fallback_contains in content.get("body", ""), f"{card} card body {content.get('body')!r} lacks {fallback_contains!r}")
    expect(content.get("format") == "org.matrix.custom.html", f"{card} card format is {content.get('format')!r}")
    html = content.get("formatted_body", "")
    expect(html.startswith("<p>") and "<script" not in html, f"{card} card formatted_body is not the small HTML: {html!r}")
    for value in fields.values():
        if isinstance(value, str):
            expect(value.replace("&", "&amp;") in html, f"{card} card formatted_body lacks {value!r}: {html!r}")


async def check(conversation):
    me = conversation.client.user_id
    docs = await conversation.say("/docs")
    greeting = await conversation.next_message("the greeting card")
    check_card(greeting, "greeting", {"summary": "Welcome"}, "Type /help")
    link = await conversation.next_message("the link card")
    check_card(link, "link", {"url": "https://example.com/docs", "text": "Parley docs"}, "Parley docs")
    expect("m.relates_to" not in link["content"], "the link card is not a reply")

    status = await conversation.say("/status 123456")
    order = await conversation.next_message("the order card")
    check_card(order, "order", {"order_id": "123456", "status": "in transit"}, "Order 123456: in transit")

    thanks = await conversation.say("thanks a lot")
    heart = await conversation.next_message("the ❤️ reaction")
    relation = heart["content"].get("m.relates_to", {})
    expect(heart["type"] == "m.reaction", f"expected m.reaction, got {heart['type']}")
    expect(relation == {"rel_type": "m.annotation", "event_id": thanks, "key": "❤️"},
           f"reaction relates_to is {relation}, expected annotation of {thanks} with ❤️")

    refund = await conversation.say("/refund")
    eyes = await conversation.next_message("the 👀 reaction")
    expect(eyes["content"].get("m.relates_to", {}).get("event_id") == refund and eyes["content"]["m.relates_to"].get("key") == "👀",
           f"👀 reaction relates to {eyes['content'].get('m.relates_to')}, expected {refund}")
    reply = await conversation.next_message("the quoted reply")
    content = reply["content"]
    expect(content.get("body") == "Let's sort this out.", f"reply body is {content.get('body')!r}")
    expect(content.get("m.relates_to", {}).get("m.in_reply_to", {}).get("event_id") == refund,
           f"reply m.in_reply_to is {content.get('m.relates_to')}, expected {refund}")
    expect(me in content.get("m.mentions", {}).get("user_ids", []), f"reply m.mentions is {content.get('m.mentions')}")
    question = await conversation.next_message("the order question")
    expect(question["content"].get("body") == "What is your order number?", f"got {question['content'].get('body')!r}")
    expect("m.relates_to" not in question["content"], "the plain reply is not a quote")
    del docs, status
    print("check: greeting, link and order cards, ❤️ and 👀 reactions, quoted reply: all as documented")


async def count_order_answers(conversation, numbers, answers):
    """Takes what arrived since the last call and counts the answers to each order."""
    await conversation.pump(1000)
    for event in conversation.events[conversation.taken:]:
        body = event.get("content", {}).get("body", "")
        for number in numbers:
            if f"order {number} " in body:
                answers[number] = answers.get(number, 0) + 1
    conversation.taken = len(conversation.events)


async def restart(conversation, command, count):
    await conversation.say("hello")
    await conversation.next_message("the greeting card")
    await conversation.next_message("the fallback answer")
    numbers = [f"{700000 + i}" for i in range(2 * count)]
    for number in numbers[:count]:
        await conversation.say(f"where is order {number}?")
    print(f"restart: {count} orders sent; running {command!r}", flush=True)
    subprocess.run(shlex.split(command), check=True, timeout=120)
    for number in numbers[count:]:
        await conversation.say(f"where is order {number}?")
    answers = {}
    deadline = time.monotonic() + 120
    while len(answers) < len(numbers) and time.monotonic() < deadline:
        await count_order_answers(conversation, numbers, answers)
    # A short quiet window: a duplicate would come right behind the first answer.
    quiet = time.monotonic() + 5
    while time.monotonic() < quiet:
        await count_order_answers(conversation, numbers, answers)
    missing = [n for n in numbers if n not in answers]
    twice = {n: c for n, c in answers.items() if c > 1}
    expect(not missing, f"orders never answered: {missing}")
    expect(not twice, f"orders answered more than once: {twice}")
    print(f"restart: {len(numbers)} orders around a homeserver restart, each answered exactly once")


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["check", "restart"])
    synapse.add_homeserver_arguments(parser)
    parser.add_argument("--bot", required=True, help="the bot's full user id")
    parser.add_argument("--restart-cmd", help="restart: the command that stops and restarts the homeserver")
    parser.add_argument("--count", type=int, default=5, help="restart: orders before and after the restart")
    args = parser.parse_args()
    name, password = synapse.new_account("nio-")
    try:
        user = synapse.register(args.homeserver, args.secret, name, password)
    except Exception as error:
        raise SetupFailed(f"cannot register {name}: {error}")
    client = AsyncClient(args.homeserver, user)
    try:
        await synapse.nio_login(client, password)
        conversation = Conversation(client, args.bot)
        await conversation.start()
        if args.mode == "check":
            await check(conversation)
        else:
            if not args.restart_cmd:
                print("restart needs --restart-cmd", file=sys.stderr)
                return 2
            await restart(conversation, args.restart_cmd, args.count)
        return 0
    finally:
        await client.close()


if __name__ == "__main__":
    synapse.run_main(main)
