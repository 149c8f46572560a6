#!/usr/bin/env python3
"""End-to-end encryption on Matrix as a customer sees it: the real `parley run --config
matrix.yaml` (with `transport.encryption.mode: default`) and the example bots on a real
Synapse, driven by matrix-nio clients with end-to-end encryption (matrix-nio[e2e], vodozemac):
a customer (alice) on two devices, a passer-by (carol) and an agent (nina).

    matrix-e2ee.py --parley PATH --workdir DIR --homeserver URL --secret S

DIR holds a copy of the repository's config files and bots/ with encryption switched on
(scripts/matrix-e2ee makes it); parley runs there, so its state (.parley/) is thrown away
with it. Checks, one line each (`ok - …` or `FAIL - …: why`; a failed one names its number):
  1. alice creates an encrypted direct room (m.room.encryption in its initial state) with the
     support bot, which joins; she decrypts its answers: the greeting card, /card bob (vCard
     card and its .vcf file, an encrypted attachment nio decrypts), /docs (link card), ❤️ on 'thanks!'.
  2. raw events: read over /messages without decryption, every event the bot sent in the room
     after joining is m.room.encrypted (Megolm), state events aside; none is a message or
     reaction in clear.
  3. a second device of alice's, logged in mid-conversation, decrypts the bot's next answer.
  4. rotation: carol, invited by alice, decrypts once joined the bot's answer sent while she
     was invited, and the next one; she leaves; the bot's next answer is in another Megolm
     session.
  5. restart: parley killed with SIGKILL and started again (same folder); alice's next command
     is answered, both of her devices decrypt it, nothing new is undecryptable, and the bot
     kept its device.
  6. hand-off into the encrypted #agents: /refund (👀, the quoted reply, the question), the
     ticket card decrypted by nina, her /take and /reply (relayed to alice, decrypted),
     /resolve and the survey.
  7. a plain (unencrypted) direct room with the announcer: /ping is answered, in clear.
  8. the store: no Megolm session key the test's devices received from the bot or shared with
     it (base64 as sent, or the raw bytes of its ratchet at its index and the next 100) is in any
     file of the bot's storage folder (crypto-support.db and its -wal among them) or in parley's
     logs, while it runs and after it stopped; nor is the pickle key.
  9. with parley run stopped, `parley broadcast` to carol (no room with the bot yet): the room
     the bot creates holds m.room.encryption, its message is encrypted, and carol decrypts it.
  10. (after the restart) the bot's device, as /keys/query shows it to alice, is signed by the
     bot's self-signing key, which its master key signs (signedjson checks the signatures).
Every wait is bounded. Exit 0 = all checks passed, 1 = a check failed (the tail of parley's
log on stderr), 2 = setup failed. Run with the venv's python of scripts/synapse.
"""
import asyncio
import base64
import hashlib
import hmac
import json
import logging
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import uuid

from nio import (AsyncClient, AsyncClientConfig, JoinResponse, KeysUploadResponse, MegolmEvent, ReactionEvent,
                 RoomInviteResponse, RoomLeaveResponse, RoomMessage, RoomPreset)
from nio.crypto.attachments import decrypt_attachment

import parley_synapse as synapse
from parley_synapse import (BotView, CheckFailed, Parley, Person, SetupFailed, body, expect, is_card, is_text,
                            msgtype)

SERVER = "localhost"
SUPPORT = f"@support:{SERVER}"
ANNOUNCER = f"@announcer:{SERVER}"
MEGOLM = "m.megolm.v1.aes-sha2"
ENCRYPTED = {"type": "m.room.encryption", "state_key": "", "content": {"algorithm": MEGOLM}}
IN_CLEAR = "parley.test.in_clear"  # marks a timeline event's JSON that came unencrypted
RATCHET_STEPS = 100  # ratchet indexes searched for past each session key's own (the test sends fewer messages)
SURVEY = "How did we do? Send a number from 1 (poor) to 5 (great), or react 👍/👎."


# matrix-nio logs every event it cannot decrypt (the second device's and carol's view of the
# history before they came, expected) as a warning: the checks say what matters.
logging.getLogger("nio").setLevel(logging.ERROR)


def log(line):
    print(f"matrix-e2ee: {line}", flush=True)


# ---- Encrypted clients

class EncryptedPerson(Person):
    """A matrix-nio client with end-to-end encryption: its own device and store (a folder of
    its own), keys uploaded, queried and claimed after each sync, sends encrypted where the
    room is. Keeps every Megolm session key it receives or makes (for the store check) and
    the events it could not decrypt."""

    def __init__(self, homeserver, user_id, password, store):
        os.makedirs(store, exist_ok=True)
        client = AsyncClient(homeserver, user_id, store_path=store,
                             config=AsyncClientConfig(encryption_enabled=True, store_sync_tokens=True))
        super().__init__(homeserver, user_id, password, client)
        self.room_keys = {}  # session id → (room id, session key in base64, as shared)
        self.undecryptable = {}  # room id → MegolmEvents, in arrival order

    async def after_login(self):
        olm = self.client.olm
        if olm is None:
            raise SetupFailed(f"{self.user_id}: matrix-nio has no encryption (pip install 'matrix-nio[e2e]')")
        # Every inbound Megolm session (an m.room_key from another device, or the twin of our
        # own outbound one) is made here with the session key in clear: keep a copy.
        create = olm.create_group_session

        def keep(sender_key, signing_key, room_id, session_id, session_key):
            self.room_keys[session_id] = (room_id, session_key)
            return create(sender_key, signing_key, room_id, session_id, session_key)

        olm.create_group_session = keep
        if self.client.should_upload_keys:
            answer = await self.client.keys_upload()
            if not isinstance(answer, KeysUploadResponse):
                raise SetupFailed(f"{self.user_id}: keys upload: {answer}")

    def received(self, room, event):
        """The event's JSON (decrypted where it was encrypted), marked `in clear` where it is a
        message or reaction that was not encrypted."""
        if isinstance(event, MegolmEvent):
            self.undecryptable.setdefault(room, []).append(event)
        if isinstance(event, (RoomMessage, ReactionEvent)) and not event.decrypted:
            return dict(event.source, **{IN_CLEAR: True})
        return event.source

    async def after_sync(self):
        """What matrix-nio's sync_forever does after each sync: keys up, devices queried,
        one-time keys claimed, the queued to-device messages (room keys) sent."""
        client = self.client
        if client.should_upload_keys:
            await client.keys_upload()
        if client.should_query_keys:
            await client.keys_query()
        if client.should_claim_keys:
            await client.keys_claim(client.get_users_for_key_claiming())
        await client.send_to_device_messages()

    async def send(self, room, event_type, content):
        # Nobody verifies devices here: keys go to every device of the room's members.
        return await self.client.room_send(room, event_type, content, tx_id=str(uuid.uuid4()),
                                           ignore_unverified_devices=True)

    async def join(self, room, seconds=30):
        """Waits for the invite to `room`, then joins it."""
        deadline = time.monotonic() + seconds
        while room not in self.client.invited_rooms:
            expect(time.monotonic() < deadline, f"{self.user_id} got no invite to {room} within {seconds} s")
            await self.pump(300)
        answer = await self.client.join(room)
        expect(isinstance(answer, JoinResponse), f"{self.user_id} cannot join {room}: {answer}")
        await self.pump(0)


class EncryptedView(BotView):
    """A bot's decrypted messages and reactions in a room; its undecryptable events are named
    in a failure's message."""

    async def next(self, what, predicate=lambda e: True, seconds=30, skip=lambda e: False):
        """As BotView's, and the event must have been encrypted."""
        def encrypted(event):
            if event.get(IN_CLEAR):
                raise CheckFailed(f"{self.name}: {what} came in clear, not encrypted: "
                                  f"{json.dumps(event['content'], ensure_ascii=False)[:300]}")
            return predicate(event)
        return await super().next(what, encrypted, seconds, skip)

    def bot_undecryptable(self):
        return [e for e in self.person.undecryptable.get(self.room, []) if e.sender == self.bot]

    def catch_up(self):
        super().catch_up()
        self.undecryptable_seen = len(self.bot_undecryptable())

    def new_undecryptable(self):
        return self.bot_undecryptable()[getattr(self, "undecryptable_seen", 0):]

    def missing(self):
        events = self.new_undecryptable()
        if not events:
            return ""
        return (f" ({len(events)} event(s) of the bot's that {self.person.user_id}'s device {self.person.client.device_id} "
                f"cannot decrypt, Megolm session(s) {sorted({e.session_id for e in events})})")


def is_order(order_id, status):
    return lambda e: is_card("order")(e) and (e["content"].get("chat.parley.card") or {}).get("order_id") == order_id \
        and body(e) == f"Order {order_id}: {status}"


# ---- Raw events: what the homeserver holds, without decryption

def raw_events(homeserver, token, room):
    """Every event of `room` as the server holds it (/messages, no decryption), oldest first."""
    events, position = [], None
    for _ in range(50):
        query = {"dir": "b", "limit": "500"}
        if position:
            query["from"] = position
        answer = synapse.http(homeserver, "GET", f"/_matrix/client/v3/rooms/{urllib.parse.quote(room)}/messages?"
                              + urllib.parse.urlencode(query), token=token)
        events.extend(answer.get("chunk", []))
        position = answer.get("end")
        if not position or not answer.get("chunk"):
            break
    return list(reversed(events))


def bot_raw_events(homeserver, token, room, bot):
    """The events `bot` sent to `room` after its first join, as the server holds them; state
    events aside (memberships, a created room's settings: Matrix has them in clear)."""
    events = raw_events(homeserver, token, room)
    joins = [i for i, e in enumerate(events) if e.get("type") == "m.room.member" and e.get("state_key") == bot
             and e.get("content", {}).get("membership") == "join"]
    expect(joins, f"no join of {bot} in the raw events of {room}")
    return [e for e in events[joins[0] + 1:] if e.get("sender") == bot and "state_key" not in e]


def bot_encrypted_events(homeserver, token, room, bot):
    """Those of `bot_raw_events` that are m.room.encrypted."""
    return [e for e in bot_raw_events(homeserver, token, room, bot) if e.get("type") == "m.room.encrypted"]


def check_all_encrypted(sent):
    """Each of `sent` (raw events) is m.room.encrypted with Megolm."""
    clear = [e for e in sent if e.get("type") != "m.room.encrypted"]
    expect(not clear, f"{len(clear)} of {len(sent)} events of the bot in clear: "
                      + "; ".join(json.dumps({k: e.get(k) for k in ("type", "content")}, ensure_ascii=False)[:300]
                                  for e in clear[:5]))
    for event in sent:
        content = event.get("content", {})
        expect(content.get("algorithm") == MEGOLM and content.get("ciphertext") and content.get("session_id"),
               f"an m.room.encrypted event of the bot is not Megolm: {json.dumps(content)[:300]}")


def session_of(raw, event_id):
    """The Megolm session id of an event among `raw` (the raw m.room.encrypted content)."""
    for event in raw:
        if event.get("event_id") == event_id:
            return event["content"]["session_id"]
    raise CheckFailed(f"event {event_id} is not among the bot's raw m.room.encrypted events")


def ratchets(session_key, steps=RATCHET_STEPS):
    """The secret part of a Megolm session key (shared or exported form), the 128 bytes of its
    ratchet after the version byte and the 4-byte index, and the ratchet at each of the next
    `steps` indexes (what a store holding the session in clear would hold after as many
    messages): (index, bytes) pairs. Megolm's advance (libolm's megolm_advance): the counter
    goes up by one; the highest of the four 32-byte parts whose counter byte changed re-keys
    itself and the parts after it, part i := HMAC-SHA256(key: part h, message: the byte i)."""
    raw = base64.b64decode(session_key + "=" * (-len(session_key) % 4))
    counter = int.from_bytes(raw[1:5], "big")
    parts = [raw[5 + 32 * i:37 + 32 * i] for i in range(4)]
    found = [(counter, b"".join(parts))]
    for _ in range(steps):
        counter = (counter + 1) & 0xFFFFFFFF
        mask, h = 0x00FFFFFF, 0
        while h < 4 and counter & mask:
            h += 1
            mask >>= 8
        for i in range(3, h - 1, -1):
            parts[i] = hmac.new(parts[h], bytes([i]), hashlib.sha256).digest()
        found.append((counter, b"".join(parts)))
    return found


# ---- The scenario

class Scenario:
    def __init__(self, args):
        self.args = args
        self.homeserver = args.homeserver.rstrip("/")
        names = ("support", "announcer", "alice", "nina", "carol", "overseer")
        self.passwords = {name: "pw-" + uuid.uuid4().hex for name in names}
        env = dict(os.environ, SUPPORT_PASSWORD=self.passwords["support"], ANNOUNCER_PASSWORD=self.passwords["announcer"],
                   PARLEY_MATRIX_HOMESERVER=self.homeserver)
        self.parley = Parley(os.path.abspath(args.parley), args.workdir, env)
        self.people = {}
        self.devices = 0
        self.passes = 0
        self.failures = 0
        self.dm = None
        self.stopped = False  # parley stopped on purpose, at the end

    def passed(self, what):
        self.passes += 1
        print(f"ok - {what}", flush=True)

    def failed(self, what, detail):
        self.failures += 1
        print(f"FAIL - {what}: {detail}", flush=True)

    async def person(self, name):
        """A new device of `name`'s: a client with its own store folder, logged in, keys uploaded."""
        self.devices += 1
        person = EncryptedPerson(self.homeserver, f"@{name}:{SERVER}", self.passwords[name],
                                 os.path.join(self.args.workdir, f"nio-{name}-{self.devices}"))
        self.people[f"{name}-{self.devices}"] = person
        await person.login()
        return person

    async def setup(self):
        admin_token = synapse.register_accounts(self.homeserver, self.args.secret, self.passwords, "overseer")
        # Synapse's default message limit (0.2/s, burst 10) would make the run wait on 429s.
        for name in ("support", "announcer", "alice", "nina", "carol"):
            synapse.set_rate_limit(self.homeserver, admin_token, f"@{name}:{SERVER}")
        self.alice = await self.person("alice")
        self.nina = await self.person("nina")
        nina = self.nina
        # The agents' room is encrypted; the others stay in clear (mode `default` answers in both).
        self.agents_room = await nina.create_room(alias="agents", name="Agents", preset=RoomPreset.private_chat,
                                                  invite=[SUPPORT], initial_state=[ENCRYPTED])
        for alias in ("supervisors", "phone"):
            await nina.create_room(alias=alias, name=alias.title(), preset=RoomPreset.private_chat, invite=[SUPPORT])
        await nina.create_room(alias="announcements", name="Announcements", preset=RoomPreset.public_chat)
        log(f"accounts registered; #agents:{SERVER} (encrypted) is {self.agents_room}")

    # -- 1
    async def open_room(self):
        alice = self.alice
        room = await alice.create_room(is_direct=True, preset=RoomPreset.trusted_private_chat, invite=[SUPPORT],
                                       initial_state=[ENCRYPTED])
        dm = EncryptedView(alice, room, SUPPORT, "alice's encrypted room with support")
        await dm.wait_joined()
        self.dm = dm
        self.passed(f"the support bot joined alice's encrypted direct room {room}")

    async def conversation(self):
        alice, dm = self.alice, self.dm
        await synapse.card_bob(alice, dm, file=False)
        self.passed("decrypted: the greeting card, /card bob's vCard card")
        # The .vcf file after the card: an encrypted attachment, nio decrypts it.
        await self.vcf_file(await dm.next("bob's .vcf file", lambda e: msgtype(e) == "m.file"))

        await synapse.docs_link(alice, dm)
        self.passed("decrypted: /docs' link card")

        await synapse.thanks_heart(alice, dm)
        self.passed("decrypted: ❤️ on her 'thanks!'")

    async def vcf_file(self, file):
        """The .vcf file's event in an encrypted room: an encrypted attachment that decrypts to bob's vCard."""
        synapse.check_vcf_event(file)
        content = file["content"]
        attachment = content.get("file")
        expect(isinstance(attachment, dict) and "url" not in content,
               f"the .vcf file is not an encrypted attachment (no `file`, or a `url` in clear): {json.dumps(content)[:400]}")
        data = synapse.download(self.homeserver, self.alice.client.access_token, attachment["url"], decode=False)
        expect(b"BEGIN:VCARD" not in data, "the .vcf file's upload on the homeserver is in clear")
        text = decrypt_attachment(data, attachment["key"]["k"], attachment["hashes"]["sha256"],
                                  attachment["iv"]).decode("utf-8", errors="replace")
        expect("BEGIN:VCARD" in text and "Bob Stone" in text, f"the decrypted .vcf file holds {text!r}")
        self.passed("decrypted: the .vcf file, an encrypted attachment (text/vcard, 'Bob Stone')")

    # -- 2
    def raw_check(self, view, what):
        sent = bot_raw_events(self.homeserver, view.person.client.access_token, view.room, SUPPORT)
        expect(sent, f"no event of the bot in {view.room}")
        check_all_encrypted(sent)
        sessions = {e["content"]["session_id"] for e in sent}
        self.passed(f"raw events in {what}: all {len(sent)} of the bot's (non-state) events after its join are "
                    f"m.room.encrypted (Megolm, {len(sessions)} session(s))")

    # -- 3
    async def second_device(self):
        alice, dm = self.alice, self.dm
        alice2 = await self.person("alice")
        self.alice2 = alice2
        other = EncryptedView(alice2, dm.room, SUPPORT, "alice's second device")
        other.catch_up()
        self.other = other
        # The bot hears of the new device through device_lists.changed in its /sync; Synapse
        # orders that before alice's next message in any case, a moment is given still.
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            await alice2.pump(200)
            await alice.pump(200)
        dm.catch_up()
        other.catch_up()
        await alice.say(dm.room, "/status 100002")
        await dm.next("the order card on the first device", is_order("100002", "in transit"))
        await other.next("the order card on the second device", is_order("100002", "in transit"))
        self.passed(f"a second device of alice's ({alice2.client.device_id}), logged in mid-conversation, "
                    "decrypts the bot's next answer")

    # -- 4
    async def rotation(self):
        alice, dm = self.alice, self.dm
        carol = await self.person("carol")
        self.carol = carol
        invited = await alice.client.room_invite(dm.room, carol.user_id)
        expect(isinstance(invited, RoomInviteResponse), f"alice cannot invite carol: {invited}")
        await self.membership(alice, dm.room, carol.user_id, "invite")
        # Invited, not joined yet: the room key goes to her too (the room's history is `shared`),
        # so she reads this answer once she has joined.
        dm.catch_up()
        await alice.say(dm.room, "/status 100003")
        await dm.next("the order card while carol is invited", is_order("100003", "in transit"))
        await carol.join(dm.room)
        await self.membership(alice, dm.room, carol.user_id, "join")
        seen = EncryptedView(carol, dm.room, SUPPORT, "carol in alice's room")
        await seen.next("the order card sent while she was invited, decrypted by carol once joined",
                        is_order("100003", "in transit"), skip=lambda e: not is_order("100003", "in transit")(e))
        seen.catch_up()
        await alice.say(dm.room, "/status 100013")
        before = await dm.next("the order card while carol is in", is_order("100013", "in transit"))
        await seen.next("the order card, decrypted by carol", is_order("100013", "in transit"))
        left = await carol.client.room_leave(dm.room)
        expect(isinstance(left, RoomLeaveResponse), f"carol cannot leave: {left}")
        await self.membership(alice, dm.room, carol.user_id, "leave")
        await alice.say(dm.room, "/status 100004")
        after = await dm.next("the order card after carol left", is_order("100004", "in transit"))
        raw = bot_encrypted_events(self.homeserver, alice.client.access_token, dm.room, SUPPORT)
        first, second = session_of(raw, before["event_id"]), session_of(raw, after["event_id"])
        expect(first != second, f"the bot's answer after carol left is in the same Megolm session {first} "
                                "as its answer while she was in")
        self.passed(f"rotation: carol decrypts the answers sent while she was invited and joined; after she leaves "
                    f"the next answer is in a new Megolm session ({first[:10]}… → {second[:10]}…)")

    async def membership(self, person, room, user, membership, seconds=30):
        deadline = time.monotonic() + seconds
        while True:
            for event in person.events.get(room, []):
                if (event.get("type") == "m.room.member" and event.get("state_key") == user
                        and event["content"].get("membership") == membership):
                    return
            expect(time.monotonic() < deadline, f"{person.user_id} saw no {membership} of {user} within {seconds} s")
            await person.pump(300)

    def bot_devices(self):
        answer = synapse.http(self.homeserver, "POST", "/_matrix/client/v3/keys/query",
                              {"device_keys": {SUPPORT: []}}, token=self.alice.client.access_token)
        return sorted(answer.get("device_keys", {}).get(SUPPORT, {}))

    # -- 5
    async def restart(self):
        alice, dm, other = self.alice, self.dm, self.other
        devices = self.bot_devices()
        expect(len(devices) == 1, f"the bot has {len(devices)} devices before the restart: {devices}")
        dm.catch_up()
        other.catch_up()
        self.parley.kill()
        self.parley.start()
        await self.parley.wait_started()
        await alice.say(dm.room, "/status 100005")
        await dm.next("the order card after the restart", is_order("100005", "in transit"))
        await other.next("the order card after the restart, on the second device", is_order("100005", "in transit"))
        for view in (dm, other):
            events = view.new_undecryptable()
            expect(not events, f"{view.name}: {len(events)} new undecryptable event(s) from the bot after the restart")
        after = self.bot_devices()
        expect(after == devices, f"the bot's devices were {devices} before the restart, {after} after")
        self.passed(f"restart: after a SIGKILL the bot answers, both of alice's devices decrypt it, nothing new is "
                    f"undecryptable, and its device ({devices[0]}) is the same")

    # -- 10
    def cross_signing(self):
        """The bot's device as a customer's client sees it in /keys/query: signed by the bot's
        self-signing key, itself signed by its master key (signatures checked with signedjson)."""
        answer = synapse.http(self.homeserver, "POST", "/_matrix/client/v3/keys/query", {"device_keys": {SUPPORT: []}},
                              token=self.alice.client.access_token)
        master = answer.get("master_keys", {}).get(SUPPORT)
        self_signing = answer.get("self_signing_keys", {}).get(SUPPORT)
        expect(master and self_signing, f"no cross-signing keys of the bot's in /keys/query: {sorted(answer)}")
        expect("master" in master.get("usage", []) and "self_signing" in self_signing.get("usage", []),
               f"the cross-signing keys' usages are {master.get('usage')} and {self_signing.get('usage')}")
        [(master_id, master_key)] = master["keys"].items()
        [(signing_id, signing_key)] = self_signing["keys"].items()
        expect(synapse.signed_by(self_signing, SUPPORT, master_id, master_key),
               "the bot's self-signing key is not signed by its master key")
        devices = answer.get("device_keys", {}).get(SUPPORT, {})
        expect(len(devices) == 1, f"the bot has {len(devices)} devices: {sorted(devices)}")
        [(device_id, device)] = devices.items()
        expect(synapse.signed_by(device, SUPPORT, signing_id, signing_key),
               f"the bot's device {device_id} is not signed by its self-signing key: {device.get('signatures')}")
        self.passed(f"cross-signing: the bot's device {device_id} is signed by its self-signing key, which its master "
                    "key signs")

    # -- 6
    async def handoff(self):
        alice, dm, nina = self.alice, self.dm, self.nina
        agents = EncryptedView(nina, self.agents_room, SUPPORT, "#agents (encrypted)")
        await agents.wait_joined()
        dm.catch_up()
        await synapse.refund_opening(alice, dm)
        self.passed("decrypted: /refund's 👀, the quoted reply (m.in_reply_to her message), the question")
        await alice.say(dm.room, "123456")
        await dm.next("the order card", is_order("123456", "refund requested"))
        await synapse.ticket_card(agents, 1, "123456")
        await agents.next("'assigned to nina'", is_text("Ticket #1 assigned to nina."))
        self.passed("hand-off: the ticket card in the encrypted #agents, decrypted by nina")
        await nina.say(self.agents_room, "/take 1")
        await agents.next("'taken by nina'", is_text("Ticket #1 taken by nina."))
        await nina.say(self.agents_room, "/reply 1 We are on it")
        await dm.next("the agent's reply, relayed", is_text("We are on it"))
        await nina.say(self.agents_room, "/resolve 1")
        await agents.next("'resolved by nina'", is_text("Ticket #1 resolved by nina."))
        await dm.next("the survey question", is_text(SURVEY))
        await alice.say(dm.room, "5")
        await dm.next("the survey's thanks", is_text("Thanks for rating us 5!"))
        self.passed("hand-off: nina's encrypted /take, /reply (relayed to alice, decrypted) and /resolve; the survey")
        self.agents = agents

    # -- 7
    async def plain_room(self):
        alice = self.alice
        room = await alice.create_room(is_direct=True, preset=RoomPreset.trusted_private_chat, invite=[ANNOUNCER])
        view = BotView(alice, room, ANNOUNCER, "alice's plain room with announcer")
        await view.wait_joined()
        await alice.say(room, "/ping")
        await view.next("pong", is_text("pong"))
        sent = bot_raw_events(self.homeserver, alice.client.access_token, room, ANNOUNCER)
        kinds = sorted({e.get("type") for e in sent})
        expect(kinds == ["m.room.message"], f"the announcer's events in the plain room are {kinds}, expected m.room.message")
        self.passed("plain room: with mode default the announcer still answers /ping in an unencrypted room, in clear")

    # -- 9
    async def broadcast(self):
        """`parley broadcast` (parley run stopped: the store is its) to carol, who has no room with the bot."""
        carol = getattr(self, "carol", None) or await self.person("carol")
        known = set(carol.client.rooms) | set(carol.client.invited_rooms)
        try:
            result = subprocess.run([self.parley.binary, "broadcast", "--config", "matrix.yaml", "--bot", "support",
                                     "--to", "user:carol", "--text", "Hello {{recipient.name}}", "--id", "e2ee"],
                                    cwd=self.args.workdir, env=self.parley.env, stdin=subprocess.DEVNULL,
                                    capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            raise CheckFailed("parley broadcast still running after 60 s")
        expect(result.returncode == 0, f"parley broadcast exited with {result.returncode}: {result.stderr[-600:]}")
        deadline = time.monotonic() + 30
        while not set(carol.client.invited_rooms) - known:
            expect(time.monotonic() < deadline, "carol got no invite to a new room with the bot within 30 s")
            await carol.pump(300)
        [room] = set(carol.client.invited_rooms) - known
        await carol.join(room)
        view = EncryptedView(carol, room, SUPPORT, "the bot's new direct room with carol")
        self.created = view
        await view.next("the broadcast's text", lambda e: body(e).startswith("Hello "))
        raw = raw_events(self.homeserver, carol.client.access_token, room)
        encryption = [e for e in raw if e.get("type") == "m.room.encryption" and e.get("state_key") == ""]
        expect(encryption and encryption[0]["content"].get("algorithm") == MEGOLM,
               f"the room the bot created has no m.room.encryption (Megolm) state: {[e.get('type') for e in raw]}")
        check_all_encrypted(bot_raw_events(self.homeserver, carol.client.access_token, room, SUPPORT))
        self.passed("mode default: `parley broadcast` to carol creates an encrypted direct room (m.room.encryption), "
                    "its message encrypted, and carol, invited, decrypts it after joining")

    # -- 8
    def store_files(self):
        """Every file of the bot's storage folder (.parley/, crypto-support.db in it), and parley's logs."""
        folder = os.path.join(self.args.workdir, ".parley")
        files = sorted(os.path.join(top, name) for top, _, names in os.walk(folder) for name in names)
        expect(os.path.join(folder, "crypto-support.db") in files,
               f"no crypto-support.db in the bot's storage folder {folder}: {[os.path.relpath(f, folder) for f in files]}")
        logs = [os.path.join(self.args.workdir, f"parley-run{n}.log") for n in range(1, self.parley.starts + 1)]
        return files + logs

    def leaks(self, keys):
        """(file, what) for every key (base64 as shared, or its ratchet's bytes) found in the bot's
        files, and the pickle key (the wrapper's PARLEY_PICKLE_KEY) itself."""
        secrets = {session_id: (origin, key, ratchets(key)) for session_id, (origin, key) in keys.items()}
        pickle_key = os.environ.get("PARLEY_PICKLE_KEY", "").encode()
        found = []
        for path in self.store_files():
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue  # the WAL went at a checkpoint
            if pickle_key and pickle_key in data:
                found.append((os.path.basename(path), "the pickle key (PARLEY_PICKLE_KEY)"))
            for session_id, (origin, key, states) in secrets.items():
                if key.encode() in data:
                    found.append((os.path.basename(path), f"{origin}'s session key {session_id[:10]}… in base64"))
                for index, state in states:
                    if state in data:
                        found.append((os.path.basename(path), f"{origin}'s session {session_id[:10]}…: "
                                                              f"its ratchet at index {index}, raw"))
        return found

    def session_keys(self):
        """Every Megolm session key the test's devices hold, by session id: the bot's (received in
        m.room_key) and their own (shared with the bot)."""
        bot_sessions = set()
        for view in (self.dm, getattr(self, "agents", None), getattr(self, "created", None)):
            if view is not None:
                raw = bot_encrypted_events(self.homeserver, view.person.client.access_token, view.room, SUPPORT)
                bot_sessions |= {e["content"]["session_id"] for e in raw}
        keys = {}
        for person in self.people.values():
            for session_id, (_, key) in person.room_keys.items():
                keys[session_id] = ("the bot" if session_id in bot_sessions else person.user_id, key)
        return keys, bot_sessions

    def check_ratchets(self):
        """`ratchets` agrees with vodozemac's export of a session at later indexes, so the search is not vain."""
        for person in self.people.values():
            for session in person.client.olm.inbound_group_store:
                if session.id in person.room_keys:
                    states = ratchets(person.room_keys[session.id][1], 3)
                    for index, state in states:
                        exported = base64.b64decode(session.export_session(index) + "==")
                        expect(exported[5:133] == state, f"the test's Megolm ratchet differs from vodozemac's at index {index}")
                    return

    async def store(self, when):
        self.check_ratchets()
        keys, bot_sessions = self.session_keys()
        from_bot = [s for s, (origin, _) in keys.items() if origin == "the bot"]
        expect(from_bot, f"no session key of the bot's ({len(bot_sessions)} sessions in its raw events) reached "
                         "the test's devices")
        files = self.store_files()
        leaks = self.leaks(keys)
        expect(not leaks, "; ".join(f"{what} in {path}" for path, what in leaks[:6])
               + (f" (and {len(leaks) - 6} more)" if len(leaks) > 6 else ""))
        names = ", ".join(os.path.basename(f) for f in files)
        self.passed(f"store {when}: none of {len(keys)} Megolm session keys ({len(from_bot)} of the bot's, the rest "
                    f"shared with it) nor the pickle key in the bot's {len(files)} files ({names})")

    async def step(self, what, check, essential=False):
        """Runs one check; a failure is printed and the next check runs (unless `essential`)."""
        for person in self.people.values():
            await person.pump(0)
        for view in (self.dm, getattr(self, "other", None)):
            if view is not None:
                view.catch_up()
        try:
            result = check()
            if asyncio.iscoroutine(result):
                await result
            return True
        except Exception as failure:  # a client's error too (matrix-nio raises on some): the next check runs
            detail = str(failure) if isinstance(failure, CheckFailed) else f"{type(failure).__name__}: {failure}"
            process = self.parley.process
            if process is not None and process.poll() is not None and not self.stopped:
                detail += f" (parley has exited with {process.returncode})"
            self.failed(what, detail)
            if essential:
                raise CheckFailed(what)
            return False

    async def run(self):
        try:
            await self.setup()
        except (SetupFailed, CheckFailed) as error:
            print(f"matrix-e2ee: setup failed: {error}", file=sys.stderr)
            return 2
        started = time.monotonic()
        # SIGTERM (the driver's time cap) from here on cancels the run: the check under way ends,
        # the run says so, parley is stopped and the clients closed.
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, asyncio.current_task().cancel)
        try:
            try:
                self.parley.start()
                await self.parley.wait_started()
            except CheckFailed as failure:
                self.failed("parley run --config matrix.yaml (encryption: default) starts", failure)
                raise
            self.passed("parley run --config matrix.yaml started with transport.encryption.mode: default")
            await self.step("1. the bot joins an encrypted direct room", self.open_room, essential=True)
            await self.step("1. encrypted direct room: the answers decrypted", self.conversation)
            await self.step("2. raw events: the bot's are encrypted", lambda: self.raw_check(self.dm, "alice's room"))
            await self.step("3. a second device decrypts the next answer", self.second_device)
            await self.step("4. rotation when a member leaves", self.rotation)
            await self.step("5. restart after SIGKILL", self.restart)
            await self.step("10. the bot's device is cross-signed", self.cross_signing)
            if await self.step("6. hand-off into the encrypted #agents", self.handoff):
                await self.step("2b. raw events in #agents: the bot's are encrypted",
                                lambda: self.raw_check(self.agents, "#agents"))
            await self.step("7. a plain room is answered in clear", self.plain_room)
            await self.step("2c. raw events: the bot's are still all encrypted",
                            lambda: self.raw_check(self.dm, "alice's room, to the end"))
            await self.step("8. no session key in the bot's files", lambda: self.store("while parley runs"))
            code = self.parley.stop()
            self.stopped = True
            if code != 0:
                self.failed("parley run stops on SIGTERM", f"exit code {code}")
            await self.step("9. a room the bot creates is encrypted", self.broadcast)
            await self.step("8b. no session key in the bot's files, stopped", lambda: self.store("after parley stopped"))
        except CheckFailed:
            pass  # printed: the checks after an essential one are skipped
        except asyncio.CancelledError:
            self.failed("the run", "interrupted by SIGTERM (the driver's time cap)")
        finally:
            self.parley.stop()
            for person in self.people.values():
                await person.close()
        if self.failures:
            print(f"matrix-e2ee: FAILED: {self.failures} check(s) failed, {self.passes} passed; "
                  f"last lines of {self.parley.log_path}:\n{self.parley.tail()}", file=sys.stderr)
            return 1
        log(f"PASSED: {self.passes} checks in {time.monotonic() - started:.0f} s (E2EE on Synapse through "
            "`parley run --config matrix.yaml`, matrix-nio with vodozemac as the customer)")
        return 0


def interrupted(*_):
    """SIGTERM during the setup: nothing of parley's to stop yet."""
    sys.exit(1)


if __name__ == "__main__":
    synapse.scenario_main(__doc__, Scenario, interrupted,
                          workdir_help="a folder with matrix.yaml (encryption on), profiles.yaml and bots/")
