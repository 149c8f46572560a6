#!/usr/bin/env python3
"""Crash test of web-chat conversations (docs/WEB.md): 100 visitors talk to a bot over real
HTTP while `parley run` is killed with SIGKILL five times and started again on the same folder.

    web_crash_test.py --parley PATH [--durability normal|full] [--seed N] [--visitors N]

Each visitor opens a session, reads its Server-Sent Events stream (reconnecting with
Last-Event-ID whenever it breaks) and plays a fixed script: /ping, /echo WORD, /ping, /refund
and a 6-digit order number, waiting for each move's answers on its stream before the next
move. Every message carries a client_id; a POST cut by the crash is sent again with the same
one. After the last visitor is done and the host is idle, the host is stopped with SIGTERM and
the streams and the stores (read with sqlite3) are checked: no event twice, none missing, every
message stored once, every conversation exactly its expected transcript, each flow run once,
the engine's inbox and the bot's outbox empty, one ticket per visitor in the right queue.
Prints one line per check and last `N passed, M failed`; exit 1 if any failed.
The binary is --parley or $PARLEY. KEEP=1 keeps the temporary folder. Only 127.0.0.1 is used; every wait is bounded.
"""
import argparse
import collections
import contextlib
import http.client
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid

BOT = "desk"
QUEUE = "refunds"
KILLS = 5
# A move's answers come within a second even across a restart; a visitor still waiting after
# this long waits for something that will not come, and gives up (reported by the checks).
MOVE_LIMIT = 30.0
# What the bot says (BOT_YAML below): the expected transcripts are made of these.
GREETING = "Welcome to the desk, {name}!"
QUESTION = "What is your order number?"
CLOSING = "Thank you: order {order} is with our team now."
# VisitorSession.clientIDNamespace: the hub's client message number of a visitor's message is
# UUIDv5(namespace, visitor + NUL + client_id), which lets the store check find each message.
CLIENT_ID_NAMESPACE = uuid.UUID("6F1C3A52-9D0B-4E7A-8C21-3B5D7E9F0A14")

# No reactions: they are not kept as events across a restart (docs/WEB.md), and every event
# id of this test must be checkable against the store.
BOT_YAML = """\
# Written by scripts/web_crash_test.py.
name: Desk
prefix: "/"
greeting:
  - reply: "Welcome to the desk, {{user.name}}!"
commands:
  ping:
    description: Answer pong
    reply: pong
  echo:
    description: Say a word back
    args: [word]
    reply: "echo {{args.word}}"
  refund:
    description: Ask for a refund
    do:
      - reply: "Let's sort this out."
      - goto: refund.order
flows:
  refund:
    order:
      reply: "What is your order number?"
      ask: { save: order, match: "^[0-9]{6}$", retry: "Please send the 6-digit order number.", timeout: 10m }
      next: confirm
    confirm:
      reply: "Thank you: order {{vars.order}} is with our team now."
      handoff: { queue: refunds, note: "Refund for order {{vars.order}}" }
fallback:
  - reply: "Sorry, I didn't get that."
"""


def log(text):
    print(f"web-crash-test: {text}", flush=True)


class Fatal(Exception):
    """The run cannot go on (setup, a host that does not come back): reported as a failed check."""


# ---------------------------------------------------------------- folder and host

def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def write_folder(work, port, durability):
    os.makedirs(os.path.join(work, "bots"))
    with open(os.path.join(work, "config.yaml"), "w") as file:
        file.write(f"""\
transport:
  kind: local
storage:
  path: .parley/parley.db
  durability: {durability}
http:
  listen: 127.0.0.1:{port}
  web_chat:
    bots: [{BOT}]
    # All visitors come from one address, and a retried send must not be refused for its rate.
    rate: {{ session: 100/s, address: 100000/s }}
""")
    with open(os.path.join(work, "bots", f"{BOT}.yaml"), "w") as file:
        file.write(BOT_YAML)


def request(port, method, path, body=None, cookie=None, timeout=10.0):
    """One HTTP request on a connection of its own: (status, the response, its JSON or None)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if cookie:
            headers["Cookie"] = cookie
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return response.status, response, parsed
    finally:
        connection.close()


class Host:
    """`parley run` in the test folder, killed and started again on the same folder and port."""

    def __init__(self, parley, work, port):
        self.parley, self.work, self.port = parley, work, port
        self.process = None
        self.starts = 0

    def start(self):
        self.starts += 1
        self.log_path = os.path.join(self.work, f"run{self.starts}.log")
        with open(self.log_path, "w") as output:
            self.process = subprocess.Popen([self.parley, "run"], cwd=self.work, stdin=subprocess.DEVNULL,
                                            stdout=output, stderr=subprocess.STDOUT)
        self.wait_ready()

    def wait_ready(self, limit=30.0):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise Fatal(f"parley run exited with {self.process.returncode}: {self.log_tail()}")
            try:
                if request(self.port, "GET", "/healthz", timeout=2.0)[0] == 200:
                    return
            except (OSError, http.client.HTTPException):
                pass
            time.sleep(0.05)
        raise Fatal(f"parley run did not answer /healthz within {limit:.0f} s: {self.log_tail()}")

    def kill(self):
        self.process.kill()
        self.process.wait(timeout=10)

    def stop(self, limit=20.0):
        """SIGTERM; the exit status, or None if it had to be killed after `limit` seconds."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            self.kill()
            return None

    def log_tail(self, lines=8):
        try:
            with open(self.log_path, errors="replace") as file:
                return " | ".join(file.read().splitlines()[-lines:])
        except OSError:
            return "(no log)"


# ---------------------------------------------------------------- visitors

def event_position(text):
    """`7` → (7, 0), `7.2` → (7, 2): the order events are numbered in (docs/WEB.md)."""
    seq, _, reaction = text.partition(".")
    return int(seq), int(reaction or 0)


def moves_of(index, name, order):
    """The visitor's script: (text, the bot's answers). The bot greets a user when their first
    message comes, so the greeting is the first answer to the first move."""
    word = f"w{index}x{order % 997}"
    return [
        ("/ping", [GREETING.format(name=name), "pong"]),
        (f"/echo {word}", [f"echo {word}"]),
        ("/ping", ["pong"]),
        ("/refund", ["Let's sort this out.", QUESTION]),
        (str(order), [CLOSING.format(order=order)]),
    ]


class Visitor:
    """One visitor: a session cookie, a stream read by a thread of its own, and the moves."""

    def __init__(self, index, port, order, rng, span, deadline):
        self.index, self.port, self.order, self.deadline = index, port, order, deadline
        self.name = f"Visitor {index}"
        self.moves = moves_of(index, self.name, order)
        # The pauses after the moves fill `span` seconds (the kills' window and more), so that
        # every visitor is in the middle of its script at every kill.
        weights = [rng.uniform(0.5, 1.5) for _ in self.moves]
        self.think = [span * weight / sum(weights) for weight in weights]
        self.start_delay = rng.uniform(0.0, 2.0)
        self.cookie = None
        self.visitor_id = None
        self.events = []          # (id, event type, data) in the order received, every connection
        self.condition = threading.Condition()
        self.connections = 0
        self.last_id = None
        self.sent = {}            # client_id -> (message id, seq) of its 202
        self.resent = {}          # client_id -> wall-clock start of the try that got its 202, if not the first
        self.done = False
        self.failure = None
        self.status = "not started"
        self.closing = False
        self.stream_socket = None
        self.stream_thread = None
        self.stream_error = ""
        self.malformed = []

    def client_id(self, move):
        return f"v{self.index}-m{move}"

    # -- HTTP with retries across the host's restarts

    def call(self, method, path, body, accept):
        """Sends until the answer is `accept`; a host that is down (refused, reset, no answer,
        503 while it starts) is waited for. Returns the parsed body."""
        tries = 0
        while time.monotonic() < self.deadline:
            tries += 1
            began = time.time()
            try:
                status, response, parsed = request(self.port, method, path, body, self.cookie)
            except (OSError, http.client.HTTPException):
                status, response, parsed = None, None, None
            if status == accept:
                if tries > 1 and "client_id" in body:
                    self.resent[body["client_id"]] = began
                return response, parsed
            if status == 429:
                time.sleep(min(2.0, float(response.getheader("Retry-After") or 1)))
            elif status in (None, 502, 503):
                time.sleep(0.2)
            else:
                raise RuntimeError(f"{method} {path} {json.dumps(body)}: {status} {parsed}")
        raise RuntimeError(f"{method} {path}: no {accept} before the deadline ({tries} tries)")

    def open_session(self):
        response, parsed = self.call("POST", f"/chat/{BOT}/session", {"name": self.name}, 200)
        cookie = response.getheader("Set-Cookie") or ""
        if not cookie.startswith("parley_chat="):
            raise RuntimeError(f"no parley_chat cookie: {cookie!r}")
        self.cookie = cookie.split(";", 1)[0]
        self.visitor_id = parsed["visitor"]

    # -- the stream

    def stream_loop(self):
        failures = 0
        while not self.closing and time.monotonic() < self.deadline + 30 and failures < 300:
            try:
                self.read_stream()
                failures = 0
            except (OSError, http.client.HTTPException, RuntimeError) as error:
                failures += 1
                self.stream_error = f"{type(error).__name__}: {error}"
            if not self.closing:
                time.sleep(0.2)

    def read_stream(self):
        headers = {"Cookie": self.cookie, "Accept": "text/event-stream"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=40)
        try:
            connection.request("GET", f"/chat/{BOT}/events", headers=headers)
            response = connection.getresponse()
            if response.status != 200:
                raise RuntimeError(f"events: {response.status} {response.read()[:200]!r}")
            self.stream_socket = connection.sock
            with self.condition:
                self.connections += 1
                self.condition.notify_all()
            self.parse_events(response)
        finally:
            self.stream_socket = None
            connection.close()

    def parse_events(self, response):
        event_id, kind, data = None, "message", []
        while not self.closing:
            line = response.readline()
            if not line:
                return
            line = line.decode("utf-8").rstrip("\r\n")
            if line == "":
                if data or event_id is not None:
                    self.take(event_id, kind, "\n".join(data))
                event_id, kind, data = None, "message", []
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "id":
                event_id = value
            elif field == "event":
                kind = value
            elif field == "data":
                data.append(value)

    def take(self, event_id, kind, data):
        if event_id is None:
            return
        try:
            event_position(event_id)
            parsed = json.loads(data) if data else None
            if kind == "message" and not isinstance((parsed or {}).get("seq"), int):
                raise ValueError("no seq")
        except ValueError as error:
            self.malformed.append(f"{who(self)} got event {event_id!r} {kind} {data[:100]!r}: {error}")
            return
        with self.condition:
            self.events.append((event_id, kind, parsed))
            self.last_id = event_id
            self.condition.notify_all()

    def close_stream(self):
        self.closing = True
        sock = self.stream_socket
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def join_stream(self):
        if self.stream_thread is not None:
            self.stream_thread.join(timeout=5)

    # -- the moves

    def answers_after(self, seq):
        """The bot's messages on the stream after `seq`, by seq (each once)."""
        found = {}
        for _, kind, data in self.events:
            if kind == "message" and data and data.get("from") == "bot" and data["seq"] > seq:
                found.setdefault(data["seq"], data.get("text"))
        return [found[key] for key in sorted(found)]

    def wait_answers(self, seq, count):
        limit = min(self.deadline, time.monotonic() + MOVE_LIMIT)
        with self.condition:
            while len(self.answers_after(seq)) < count:
                left = limit - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"{self.status}; got {self.answers_after(seq)}")
                self.condition.wait(min(left, 1.0))

    def wait_connected(self):
        with self.condition:
            while self.connections == 0:
                left = self.deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError(f"the stream never opened: {self.stream_error}")
                self.condition.wait(min(left, 1.0))

    def run(self):
        try:
            time.sleep(self.start_delay)
            self.status = "opening the session"
            self.open_session()
            self.stream_thread = threading.Thread(target=self.stream_loop, name=f"stream-{self.index}", daemon=True)
            self.stream_thread.start()
            self.wait_connected()
            for move, (text, answers) in enumerate(self.moves):
                self.status = f"move {move} {text!r}: posting"
                _, parsed = self.call("POST", f"/chat/{BOT}/messages", {"text": text, "client_id": self.client_id(move)}, 202)
                self.sent[self.client_id(move)] = (parsed["id"], parsed["seq"])
                self.status = f"move {move} {text!r}: seq {parsed['seq']}, waiting for {len(answers)} answers"
                self.wait_answers(parsed["seq"], len(answers))
                time.sleep(self.think[move])
            self.status = "done"
            self.done = True
        except Exception as error:  # noqa: BLE001 - any failure is this visitor's, reported at the end
            self.failure = f"{type(error).__name__}: {error}"


# ---------------------------------------------------------------- the crashes

def crash_repeatedly(host, visitors, pauses):
    """Kills the host with SIGKILL after each of `pauses` (seconds) while visitors still work,
    each time starting it again at once. Returns the number of kills done."""
    kills = 0
    for pause in pauses:
        end = time.monotonic() + pause
        while time.monotonic() < end and not all_finished(visitors):
            time.sleep(0.05)
        if all_finished(visitors):
            break
        working = sum(1 for v in visitors if not (v.done or v.failure))
        host.kill()
        kills += 1
        started = time.monotonic()
        host.start()
        log(f"SIGKILL {kills} after {pause:.1f} s ({working} visitors working); up again in {time.monotonic() - started:.1f} s")
    return kills


def all_finished(visitors):
    return all(v.done or v.failure for v in visitors)


def wait_visitors(visitors, deadline):
    while time.monotonic() < deadline and not all_finished(visitors):
        time.sleep(0.1)


# ---------------------------------------------------------------- the stores

@contextlib.contextmanager
def open_db(work, name):
    """A read-only connection to one of the host's databases (it may still be running)."""
    path = os.path.join(work, ".parley", name)
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        yield connection
    finally:
        connection.close()


def count(work, name, table):
    with open_db(work, name) as connection:
        return connection.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def wait_idle(work, limit=20.0):
    """Until the hub has stored nothing new for 1.5 s and the engine's inbox is empty. (Not the
    bot's outbox: it deletes sent rows in batches, with later writes or at the stop.)"""
    deadline = time.monotonic() + limit
    last, since = None, time.monotonic()
    while time.monotonic() < deadline:
        now = (count(work, "parley.db", "hub_messages"), count(work, "parley.db", "engine_inbox"))
        if now != last:
            last, since = now, time.monotonic()
        elif now[1] == 0 and time.monotonic() - since >= 1.5:
            return True
        time.sleep(0.25)
    return False


# A stored message: `time` is the hub's (seconds since 1970), `client_id` the 16 bytes.
Stored = collections.namedtuple("Stored", "seq client_id sender text time")


def conversation(hub, visitor_id):
    """The stored messages of the visitor's conversation with the bot, in order."""
    row = hub.execute("SELECT number FROM hub_channels WHERE kind = 'person' AND "
                      "((first = ? AND second = ?) OR (first = ? AND second = ?))",
                      (BOT, visitor_id, visitor_id, BOT)).fetchone()
    if row is None:
        return []
    return [Stored(seq, bytes(client_id), sender, json.loads(payload).get("text"), stamp)
            for seq, client_id, sender, payload, stamp in hub.execute(
                "SELECT seq, client_id, sender, payload, time FROM hub_messages WHERE channel = ? ORDER BY seq", (row[0],))]


def expected_transcript(visitor):
    lines = []
    for text, answers in visitor.moves:
        lines.append(("visitor", text))
        lines += [("bot", answer) for answer in answers]
    return lines


# ---------------------------------------------------------------- the checks

class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}", flush=True)


def who(visitor):
    return f"visitor {visitor.index} ({visitor.visitor_id})"


def check_visitors(report, visitors):
    stuck = [v for v in visitors if not v.done]
    details = "; ".join(f"{who(v)}: {v.failure or v.status}; last saw {last_seen(v)} "
                        f"({len(v.events)} events over {v.connections} connections)" for v in stuck[:5])
    report.check("visitors", not stuck, f"{len(visitors) - len(stuck)} of {len(visitors)} finished their script"
                 + (f"; stuck: {details}" if stuck else ""))


def last_seen(visitor):
    with visitor.condition:
        if not visitor.events:
            return "no event"
        event_id, kind, data = visitor.events[-1]
    return f"event {event_id} ({kind} {(data or {}).get('text')!r})"


def check_streams(report, visitors, stored):
    """Event ids only grow across a visitor's connections; its message events are exactly the
    messages of its conversation in the store."""
    repeats, losses = [], []
    for visitor in visitors:
        repeats += repeated_events(visitor)
        losses += lost_events(visitor, stored.get(visitor.index, [])) + visitor.malformed
    events = sum(len(v.events) for v in visitors)
    connections = sum(v.connections for v in visitors)
    report.check("streams: nothing twice", not repeats,
                 f"{len(repeats)} repeated events of {events} received over {connections} connections"
                 + (f"; e.g. {'; '.join(repeats[:5])}" if repeats else ""))
    missing = sum(1 for loss in losses if "never got" in loss)
    report.check("streams: nothing lost", not losses,
                 f"{missing} stored messages missing from their stream, {len(losses) - missing} streamed messages not as stored or malformed"
                 + (f"; e.g. {'; '.join(losses[:5])}" if losses else ""))


def repeated_events(visitor):
    """Each event at or before one the visitor already had (over all its connections)."""
    found = []
    highest = None
    for event_id, _, _ in visitor.events:
        position = event_position(event_id)
        if highest is not None and position <= event_position(highest):
            found.append(f"{who(visitor)} got {event_id} after {highest}")
        else:
            highest = event_id
    return found


def lost_events(visitor, rows):
    """The conversation's stored messages the stream did not bring, and streamed messages that
    differ from the store (or are not in it)."""
    received = {data["seq"]: data.get("text") for _, kind, data in visitor.events if kind == "message"}
    in_store = {row.seq: row.text for row in rows}
    found = [f"{who(visitor)} never got message {seq} {in_store[seq]!r}" for seq in sorted(in_store.keys() - received.keys())]
    found += [f"{who(visitor)} got message {seq} {received[seq]!r}, stored as {in_store.get(seq)!r}"
              for seq in sorted(received) if received[seq] != in_store.get(seq)]
    return found


def check_messages_once(report, visitors, stored):
    """Each visitor message is in the hub once, under its client_id, at the seq its 202 gave."""
    problems = []
    total = repeats = 0
    for visitor in visitors:
        rows = stored.get(visitor.index, [])
        for move, (text, _) in enumerate(visitor.moves):
            if visitor.client_id(move) not in visitor.sent:
                continue
            total += 1
            client = uuid.uuid5(CLIENT_ID_NAMESPACE, f"{visitor.visitor_id}\0{visitor.client_id(move)}")
            found = [row for row in rows if row.client_id == client.bytes]
            _, seq = visitor.sent[visitor.client_id(move)]
            if len(found) != 1:
                problems.append(f"{who(visitor)} move {move} {text!r} stored {len(found)} times")
            elif (found[0].sender, found[0].text) != (visitor.visitor_id, text):
                problems.append(f"{who(visitor)} move {move} {text!r} stored as {found[0].text!r} from {found[0].sender}")
            elif seq != found[0].seq:
                problems.append(f"{who(visitor)} move {move} acknowledged as seq {seq}, stored at {found[0].seq}")
            elif visitor.client_id(move) in visitor.resent and found[0].time < visitor.resent[visitor.client_id(move)]:
                repeats += 1
    report.check("store: every visitor message once", not problems,
                 f"{total - len(problems)} of {total} stored exactly once at their acknowledged seq; "
                 f"{sum(len(v.resent) for v in visitors)} sent again after a crash, {repeats} of them stored by an "
                 f"earlier try (answered with the first result)" + (f"; {'; '.join(problems[:5])}" if problems else ""))


def check_transcripts(report, visitors, stored):
    wrong = []
    for visitor in visitors:
        actual = [("visitor" if sender == visitor.visitor_id else "bot" if sender == BOT else sender, text)
                  for _, _, sender, text, _ in stored.get(visitor.index, [])]
        expected = expected_transcript(visitor)
        if actual != expected:
            at = next((i for i, (a, b) in enumerate(zip(actual, expected)) if a != b), min(len(actual), len(expected)))
            wrong.append(f"{who(visitor)} line {at}: stored {actual[at:at + 2]}, expected {expected[at:at + 2]} "
                         f"({len(actual)} lines, {len(expected)} expected)")
    report.check("store: transcripts", not wrong,
                 f"{len(visitors) - len(wrong)} of {len(visitors)} conversations exactly greeting, moves and answers"
                 + (f"; {'; '.join(wrong[:3])}" if wrong else ""))


def check_flows(report, visitors, stored, states):
    """The flow's question and closing reply once per visitor, and its conversation left handed off."""
    wrong = []
    for visitor in visitors:
        texts = [row.text for row in stored.get(visitor.index, []) if row.sender == BOT]
        closing = CLOSING.format(order=visitor.order)
        state = states.get(f"user:{visitor.visitor_id}")
        if texts.count(QUESTION) != 1 or texts.count(closing) != 1:
            wrong.append(f"{who(visitor)}: question {texts.count(QUESTION)}x, closing {texts.count(closing)}x")
        elif state is None or state.get("waiting") or state.get("ticket") is None \
                or state.get("vars", {}).get("order") != str(visitor.order):
            wrong.append(f"{who(visitor)}: conversation state {state}")
    report.check("flows: each run once", not wrong,
                 f"{len(visitors) - len(wrong)} of {len(visitors)} asked once, closed once, left with the agents"
                 + (f"; {'; '.join(wrong[:3])}" if wrong else ""))


def check_tickets(report, visitors, tickets, cards):
    by_channel = {}
    for ticket in tickets:
        by_channel.setdefault(ticket["channel"], []).append(ticket)
    wrong = []
    for visitor in visitors:
        mine = by_channel.pop(f"user:{visitor.visitor_id}", [])
        if len(mine) != 1:
            wrong.append(f"{who(visitor)}: {len(mine)} tickets")
        elif mine[0]["queue"] != QUEUE or str(visitor.order) not in (mine[0].get("note") or ""):
            wrong.append(f"{who(visitor)}: ticket in {mine[0]['queue']!r} with note {mine[0].get('note')!r}")
    extra = sum(len(rest) for rest in by_channel.values())
    report.check("tickets: one per visitor", not wrong and extra == 0,
                 f"{len(tickets)} tickets for {len(visitors)} visitors, {extra} for no visitor of the test; "
                 f"{cards} ticket cards in group:{QUEUE}" + (f"; {'; '.join(wrong[:3])}" if wrong else ""))
    report.check("tickets: one card each", cards == len(tickets), f"{cards} cards posted for {len(tickets)} tickets")


def check_stores(report, work, visitors):
    with open_db(work, "parley.db") as hub:
        stored = {v.index: conversation(hub, v.visitor_id) for v in visitors if v.visitor_id}
        queue = hub.execute("SELECT number FROM hub_channels WHERE kind = 'group' AND (first = ? OR second = ?)",
                            (QUEUE, QUEUE)).fetchone()
        cards = hub.execute("SELECT COUNT(*) FROM hub_messages WHERE channel = ? AND sender = ?",
                            (queue[0], BOT)).fetchone()[0] if queue else 0
    with open_db(work, "parley.db") as host:
        states = {channel: json.loads(state) for channel, state in
                  host.execute("SELECT channel, state FROM engine_states WHERE bot = ?", (BOT,))}
        tickets = [dict(json.loads(ticket), queue=queue_name, channel=channel) for queue_name, channel, ticket in
                   host.execute("SELECT queue, channel, ticket FROM engine_tickets WHERE bot = ?", (BOT,))]
    inbox = count(work, "parley.db", "engine_inbox")
    outbox = count(work, f"parley.{BOT}.db", "outbox")
    check_streams(report, visitors, stored)
    check_messages_once(report, visitors, stored)
    check_transcripts(report, visitors, stored)
    check_flows(report, visitors, stored, states)
    report.check("engine inbox empty", inbox == 0, f"{inbox} messages received and never handled")
    report.check("bot outbox empty", outbox == 0, f"{outbox} sends of {BOT} still waiting in parley.{BOT}.db")
    check_tickets(report, visitors, tickets, cards)


# ---------------------------------------------------------------- main

def run(args, work, report):
    port = free_port()
    write_folder(work, port, args.durability)
    checked = subprocess.run([args.parley, "check"], cwd=work, capture_output=True, text=True, timeout=60)
    if checked.returncode != 0:
        raise Fatal(f"parley check failed: {checked.stdout}{checked.stderr}")
    host = Host(args.parley, work, port)
    try:
        host.start()
        visitors = converse(args, host, report)
        idle = wait_idle(work)
        for visitor in visitors:
            visitor.close_stream()
        status = host.stop()
        report.check("clean stop", idle and status == 0,
                     f"host idle: {idle}; SIGTERM: {'exit ' + str(status) if status is not None else 'still running after 20 s'}")
    finally:
        if host.process and host.process.poll() is None:
            host.kill()
    for visitor in visitors:
        visitor.join_stream()
    check_stores(report, work, visitors)


def converse(args, host, report):
    """The visitors' scripts with the crashes in the middle; returns the visitors."""
    started = time.monotonic()
    deadline = started + args.timeout
    rng = random.Random(args.seed)
    pauses = [rng.uniform(1.0, 4.0) for _ in range(KILLS)]
    # The restarts take a fraction of a second each; 7 s more covers them with room to spare.
    span = sum(pauses) + 7.0
    orders = rng.sample(range(100000, 1000000), args.visitors)
    visitors = [Visitor(i, host.port, orders[i], rng, span, deadline) for i in range(args.visitors)]
    for visitor in visitors:
        threading.Thread(target=visitor.run, name=f"visitor-{visitor.index}", daemon=True).start()
    kills = crash_repeatedly(host, visitors, pauses)
    wait_visitors(visitors, deadline)
    log(f"visitors ended after {time.monotonic() - started:.1f} s")
    report.check("crashes", kills == KILLS, f"{kills} of {KILLS} SIGKILLs while visitors worked (seed {args.seed})")
    check_visitors(report, visitors)
    return visitors


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parley", default=os.environ.get("PARLEY"), help="the parley binary (default: $PARLEY)")
    parser.add_argument("--durability", choices=["normal", "full"], default="normal")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    parser.add_argument("--visitors", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=75.0, help="seconds the visitors may take in all")
    args = parser.parse_args()
    if not args.parley:
        parser.error("--parley or $PARLEY is needed")
    args.parley = os.path.abspath(args.parley)
    if args.seed is None:
        args.seed = int(time.time() * 1000) % 1_000_000
    log(f"durability {args.durability}, {args.visitors} visitors, seed {args.seed}")
    work = tempfile.mkdtemp(prefix="parley-web-crash-")
    report = Report()
    began = time.monotonic()
    try:
        run(args, work, report)
    except Fatal as error:
        report.check("run", False, str(error))
    except Exception as error:  # noqa: BLE001 - a bug of this script still ends in the summary line
        traceback.print_exc()
        report.check("run", False, f"the test itself failed: {type(error).__name__}: {error}")
    finally:
        if os.environ.get("KEEP"):
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    log(f"durability {args.durability}: {time.monotonic() - began:.1f} s")
    print(f"{report.passed} passed, {report.failed} failed", flush=True)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
