#!/usr/bin/env python3
"""End-to-end test of the example bots on Matrix: the real `parley run --config matrix.yaml`
on a real Synapse, driven by matrix-nio clients as a customer (alice), an agent (nina) and a
stranger (mallory).

    matrix-e2e.py --parley PATH --workdir DIR --homeserver URL --secret S

DIR holds a copy of the repository's config files and bots/ (scripts/matrix-e2e
makes it); parley runs there, so its state (.parley/) is thrown away with it. Checks, in order:
  1. the support bot in alice's direct room: greeting card, /card bob (vCard card, then its
     .vcf file), /docs (link card), thanks! (❤️ on her message), /refund (👀, a quoted reply,
     the question), a wrong and a right order number (retry, order card);
  2. the hand-off: the ticket card in #agents:localhost; /take, /reply (relayed into alice's
     room as the bot), /resolve by nina, a member of the room; /take and /resolve by mallory
     outside it are refused with a log line and change nothing;
  3. the announcer answers /ping;
  3b. the agents' console (/console/api) for this Matrix-hosted bot: a second hand-off's ticket
     with alice's card, the note and her messages; taken, answered (alice gets the answer as the
     bot's) and resolved by its agent; refused (403) to an agent of another queue;
  4. a crash with queued answers: under a tight rate limit on the bot's account alice sends
     five /status commands; once the bot has received them all and holds an unsent answer,
     parley is killed with SIGKILL, the limit lifted and parley started again; alice's room
     then holds every answer exactly once.
Every wait is bounded. Exit 0 = all checks passed, 1 = a check failed (which one, and the tail
of parley's log, on stderr), 2 = setup failed. Run with the venv's python of scripts/synapse.
"""
import asyncio
import json
import os
import sqlite3
import sys
import time
import urllib.error
import urllib.request
import uuid

from nio import RoomPreset

import parley_synapse as synapse
from parley_synapse import (BotView, CheckFailed, Parley, Person, SetupFailed, body, check_card, download, expect, is_card,
                            is_text)

SERVER = "localhost"
SUPPORT = f"@support:{SERVER}"
ANNOUNCER = f"@announcer:{SERVER}"
ORDERS = [f"10000{i}" for i in range(1, 6)]


def log(line):
    print(f"matrix-e2e: {line}", flush=True)


# ---- Homeserver administration (plain HTTP through parley_synapse, every request with a timeout)

def set_rate_limit(homeserver, admin_token, user, per_second, burst):
    """Overrides the message rate limit of `user` (0/0: none); takes effect at once."""
    synapse.set_rate_limit(homeserver, admin_token, user, per_second, burst)
    got = synapse.rate_limit(homeserver, admin_token, user)
    expect(got.get("messages_per_second", 0) == per_second and got.get("burst_count", 0) == burst,
           f"rate limit override of {user} not in place: {got}")


# ---- The scenario

class Scenario:
    def __init__(self, args):
        self.args = args
        self.homeserver = args.homeserver.rstrip("/")
        self.passwords = {name: "pw-" + uuid.uuid4().hex for name in ("support", "announcer", "alice", "nina", "mallory", "overseer")}
        self.tokens = {name: "console-" + uuid.uuid4().hex for name in ("nina", "omar", "ines")}
        env = dict(os.environ, SUPPORT_PASSWORD=self.passwords["support"], ANNOUNCER_PASSWORD=self.passwords["announcer"],
                   PARLEY_MATRIX_HOMESERVER=self.homeserver, NINA_TOKEN=self.tokens["nina"], OMAR_TOKEN=self.tokens["omar"],
                   INES_TOKEN=self.tokens["ines"])
        self.parley = Parley(os.path.abspath(args.parley), args.workdir, env)
        self.people = {}
        self.admin_token = None
        self.checks = 0

    def passed(self, what):
        self.checks += 1
        log(f"ok: {what}")

    async def setup(self):
        self.admin_token = synapse.register_accounts(self.homeserver, self.args.secret, self.passwords, "overseer")
        # Synapse's default (0.2/s, burst 10) would make this run wait on 429s; the crash
        # check sets a tight limit on the support bot on purpose.
        for name in ("support", "announcer", "alice", "nina", "mallory"):
            set_rate_limit(self.homeserver, self.admin_token, f"@{name}:{SERVER}", 0, 0)
        for name in ("alice", "nina", "mallory"):
            self.people[name] = Person(self.homeserver, f"@{name}:{SERVER}", self.passwords[name])
            await self.people[name].login()
        nina = self.people["nina"]
        self.agents, self.supervisors, self.phone, self.announcements = await synapse.example_rooms(nina, SUPPORT)
        log(f"accounts registered; #agents:{SERVER} is {self.agents}, #announcements:{SERVER} is {self.announcements}")

    async def direct_room(self, person, bot, name):
        room = await person.create_room(is_direct=True, preset=RoomPreset.trusted_private_chat, invite=[bot])
        view = BotView(person, room, bot, name)
        await view.wait_joined()
        return view

    async def conversation(self):
        alice, nina = self.people["alice"], self.people["nina"]
        agents = BotView(nina, self.agents, SUPPORT, "#agents")
        dm = await self.direct_room(alice, SUPPORT, "alice's room with support")
        self.dm = dm
        self.passed("the support bot joined alice's direct room")

        file = await synapse.card_bob(alice, dm)
        url = file["content"].get("url", "")
        expect(url.startswith("mxc://"), f"vCard file url is {url!r}")
        text = download(self.homeserver, alice.client.access_token, url)
        expect("BEGIN:VCARD" in text and "Bob Stone" in text, f"the .vcf file holds {text!r}")
        self.passed("greeting card; /card bob: vCard card and its .vcf file (text/vcard)")

        await synapse.docs_link(alice, dm)
        self.passed("/docs: link card")

        await synapse.thanks_heart(alice, dm)
        self.passed("thanks!: ❤️ on her message")

        await synapse.refund_opening(alice, dm)
        await alice.say(dm.room, "12")
        await dm.next("the retry", is_text("Please send the 6-digit order number."))
        await alice.say(dm.room, "123456")
        order = await dm.next("the order card", is_card("order"))
        check_card(order, "order", {"order_id": "123456", "status": "refund requested"}, "Order 123456: refund requested")
        self.passed("/refund: 👀, quoted reply, question, retry on '12', order card on '123456'")

        ticket = await synapse.ticket_card(agents, 1, "123456")
        expect("> Alice Liddell: 123456" in body(ticket), f"the ticket card lacks the recent lines: {body(ticket)!r}")
        # handoff.queues.agents assigns in turn: nina is first.
        await agents.next("'assigned to nina'", is_text("Ticket #1 assigned to nina."))
        self.passed("hand-off: ticket card #1 in #agents, seen by nina, assigned to her")

        await nina.say(self.agents, "/take 1")
        await agents.next("'taken by nina'", is_text("Ticket #1 taken by nina."))
        self.passed("nina: /take 1 in #agents")

        mallory = self.people["mallory"]
        strange = await self.direct_room(mallory, SUPPORT, "mallory's room with support")
        await mallory.say(strange.room, "/take 1")
        await mallory.say(strange.room, "/resolve 1")
        refused = await self.parley.wait_for_line(
            lambda line: "agent command refused" in line and "user=mallory" in line and "command=resolve" in line,
            "refusal of mallory's /resolve", 30)
        expect(any("command=take" in line and "user=mallory" in line for line in self.parley.lines()
                   if "agent command refused" in line), "no refusal of mallory's /take in the log")
        del refused
        await strange.nothing_new("mallory's /take and /resolve are refused silently")
        await agents.nothing_new("mallory cannot take or resolve ticket #1")
        await dm.nothing_new("mallory's commands reach nobody")
        self.passed("mallory: /take 1 and /resolve 1 outside #agents refused with a log line, no effect")

        await nina.say(self.agents, "/reply 1 We are on it")
        await dm.next("the agent's reply, relayed", is_text("We are on it"))
        await nina.say(self.agents, "/resolve 1")
        await agents.next("'resolved by nina'", is_text("Ticket #1 resolved by nina."))
        await self.parley.wait_for_line(lambda line: "conversation back to the bot" in line, "'conversation back to the bot'", 30)
        self.passed("nina: /reply 1 reaches alice as the bot; /resolve 1")
        # handoff.on_resolve: the survey.
        await dm.next("the survey question", is_text("How did we do? Send a number from 1 (poor) to 5 (great), or react 👍/👎."))
        await alice.say(dm.room, "5")
        await dm.next("the survey's thanks", is_text("Thanks for rating us 5!"))
        self.passed("on_resolve: alice rates the help 5 and is thanked")

        announcer = await self.direct_room(alice, ANNOUNCER, "alice's room with announcer")
        await alice.say(announcer.room, "/ping")
        await announcer.next("pong", is_text("pong"))
        self.passed("the announcer answers /ping")

    def console_call(self, agent, method, path, body=None):
        """A console API request as `agent` (Bearer token): (status, JSON)."""
        [line] = [line for line in self.parley.lines() if " listening url=" in line][-1:] or [None]
        expect(line is not None, "no 'listening' line in parley's log")
        base = line.split("url=")[1].split()[0]
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(base + path, data=data, method=method,
                                         headers={"Authorization": f"Bearer {self.tokens[agent]}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    async def console(self):
        alice, dm = self.people["alice"], self.dm
        await synapse.refund_opening(alice, dm)
        await alice.say(dm.room, "654321")
        await dm.next("the order card", is_card("order"))
        path = "/console/api/tickets/agents/2"
        deadline = time.monotonic() + 30
        status, ticket = self.console_call("nina", "GET", path)
        while status == 404 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            status, ticket = self.console_call("nina", "GET", path)
        expect(status == 200, f"the console's ticket #2: {status} {ticket}")
        expect(ticket["customer"]["name"] == "Alice Liddell", f"the ticket's customer is {ticket['customer']}")
        expect(ticket["note"] == "Refund for order 654321 from alice", f"the ticket's note is {ticket['note']!r}")
        expect(any(m["from"] == "customer" and m["text"] == "654321" for m in ticket["messages"]),
               f"the ticket's messages lack alice's 654321: {ticket['messages']}")
        self.passed("console on Matrix: ticket #2 with alice's card, the note and her messages")
        status, refused = self.console_call("ines", "GET", path)
        expect(status == 403, f"ines (queue phone) read ticket #2: {status} {refused}")
        status, refused = self.console_call("ines", "POST", path + "/take", {})
        expect(status == 403, f"ines (queue phone) took ticket #2: {status} {refused}")
        self.passed("console on Matrix: an agent of another queue is refused (403)")
        agent = ticket.get("agent") or "nina"
        for verb, body in (("take", {}), ("reply", {"text": "Console here"})):
            status, answer = self.console_call(agent, "POST", f"{path}/{verb}", body)
            expect(status == 200, f"{agent}'s {verb} of ticket #2: {status} {answer}")
        await dm.next("the console's reply, as the bot", is_text("Console here"))
        status, answer = self.console_call(agent, "POST", f"{path}/resolve", {})
        expect(status == 200 and answer["status"] == "resolved", f"{agent}'s resolve of ticket #2: {status} {answer}")
        await dm.next("the survey question", is_text("How did we do? Send a number from 1 (poor) to 5 (great), or react 👍/👎."))
        await alice.say(dm.room, "4")
        await dm.next("the survey's thanks", is_text("Thanks for rating us 4!"))
        self.passed(f"console on Matrix: {agent} takes, answers (alice gets it as the bot's) and resolves ticket #2")

    def query(self, database, sql, params=()):
        path = os.path.join(self.args.workdir, ".parley", database)
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return connection.execute(sql, params).fetchall()
        finally:
            connection.close()

    async def crash(self):
        alice, dm = self.people["alice"], self.dm
        start = len(dm.bot_events())
        dm.taken = start
        # One message a second (Synapse takes whole numbers only): the answers go out one by one
        # over about five seconds, the later commands waiting for their turn meanwhile.
        set_rate_limit(self.homeserver, self.admin_token, SUPPORT, 1, 1)
        sent = [await alice.say(dm.room, f"/status {order}") for order in ORDERS]
        marks = ",".join("?" * len(sent))
        deadline = time.monotonic() + 30
        while True:
            await alice.pump(200)
            try:
                # Received: recorded by the bot's Matrix transport (its sync position is past them).
                received = self.query("matrix-support.db", f"SELECT COUNT(*) FROM matrix_events WHERE event_id IN ({marks})", sent)[0][0]
                # Unsent: answers in the bot's outbox, and commands not handled yet (engine inbox).
                queued = self.query("matrix.support.db", "SELECT COUNT(*) FROM outbox")[0][0]
                waiting = self.query("matrix.db", "SELECT COUNT(*) FROM engine_inbox WHERE bot = 'support'")[0][0]
            except sqlite3.Error:
                received, queued, waiting = 0, 0, 0  # not created yet, or busy: asked again
            answered = len(dm.bot_events()) - start
            if received == len(sent) and queued > 0:
                break
            expect(time.monotonic() < deadline,
                   f"crash: within 30 s the bot did not receive all commands with an answer unsent "
                   f"(received {received}/{len(sent)}, queued {queued}, answered {answered})")
        self.parley.kill()
        log(f"parley killed with SIGKILL: {len(sent)} commands received, {answered} answered, {queued} answers queued "
            f"in the outbox, {waiting} commands not handled yet")
        set_rate_limit(self.homeserver, self.admin_token, SUPPORT, 0, 0)
        self.parley.start()
        await self.parley.wait_started()

        def counts():
            found = {order: 0 for order in ORDERS}
            for event in dm.bot_events()[start:]:
                fields = event["content"].get("chat.parley.card") or {}
                expect(is_card("order")(event) and fields.get("order_id") in found,
                       f"crash: unexpected answer {json.dumps(event['content'], ensure_ascii=False)}")
                expect(body(event) == f"Order {fields['order_id']}: in transit", f"crash: order card body {body(event)!r}")
                found[fields["order_id"]] += 1
            return found

        deadline = time.monotonic() + 60
        while any(count == 0 for count in counts().values()) and time.monotonic() < deadline:
            await alice.pump(500)
        # A duplicate would come right behind: a short quiet window.
        quiet = time.monotonic() + 3
        while time.monotonic() < quiet:
            await alice.pump(300)
        found = counts()
        missing = [order for order, count in found.items() if count == 0]
        twice = {order: count for order, count in found.items() if count > 1}
        if missing:
            # Where the lost answer sits, for the next diagnosis: still in the outbox, or its
            # command never handled.
            try:
                queued = self.query("matrix.support.db", "SELECT COUNT(*) FROM outbox")[0][0]
                waiting = self.query("matrix.db", "SELECT COUNT(*) FROM engine_inbox WHERE bot = 'support'")[0][0]
            except sqlite3.Error as error:
                queued, waiting = f"unreadable ({error})", "?"
            expect(False, f"crash: answers never delivered after the restart: {missing} (delivered: {found}; "
                          f"{queued} answers in the outbox, {waiting} commands not handled)")
        expect(not twice, f"crash: answers delivered more than once: {twice}")
        self.passed(f"crash: every one of {len(ORDERS)} answers delivered exactly once across the SIGKILL and restart")

    async def run(self):
        try:
            await self.setup()
        except (SetupFailed, CheckFailed) as error:
            print(f"matrix-e2e: setup failed: {error}", file=sys.stderr)
            return 2
        started = time.monotonic()
        try:
            self.parley.start()
            await self.parley.wait_started()
            self.passed("parley run --config matrix.yaml started")
            await self.conversation()
            await self.console()
            await self.crash()
            code = self.parley.stop()
            expect(code == 0, f"parley run exited with {code} on SIGTERM")
            log(f"PASSED: {self.checks} checks in {time.monotonic() - started:.0f} s "
                f"(the example bots on Synapse through `parley run --config matrix.yaml`)")
            return 0
        except CheckFailed as failure:
            print(f"matrix-e2e: FAILED: {failure}", file=sys.stderr)
            print(f"matrix-e2e: last lines of {self.parley.log_path}:\n{self.parley.tail()}", file=sys.stderr)
            return 1
        finally:
            self.parley.stop()
            for person in self.people.values():
                await person.close()


def interrupted(*_):
    """Stopped from outside (the driver's time cap): end like a failed check, so parley is stopped too."""
    raise CheckFailed("interrupted by SIGTERM (the driver's time cap)")


if __name__ == "__main__":
    synapse.scenario_main(__doc__, Scenario, interrupted)
