"""What the Python test scripts share: Synapse's admin API over plain HTTP (registering users
with the shared secret, lifting rate limits, logging in), a matrix-nio login, the
media-download URL, the exceptions and exit codes of a check, and the signal reset for a
Swift parent; for the end-to-end scripts (matrix-e2e.py, matrix-e2ee.py) the `parley run`
process, a matrix-nio client per account, a bot's events in a room and the predicates on them.

The scripts beside this file import it as `parley_synapse`: Python puts a script's own folder
first on sys.path, so `python scripts/x.py` finds it from any working directory. Importing it
needs the standard library only: matrix-nio is imported by `nio_login`'s callers, and inside
`Person`'s methods, not at the top. Every network call has a timeout.
"""
import asyncio
import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid

TIMEOUT = 30  # seconds for one HTTP request
MEDIA_DOWNLOAD = "/_matrix/client/v1/media/download"


class CheckFailed(Exception):
    """A check did not hold (exit 1)."""


class SetupFailed(Exception):
    """The test could not be set up (exit 2)."""


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


def unblock_signals():
    """A Swift parent (Foundation's Process) starts us with its dispatch threads' signal mask,
    SIGTERM blocked: unblock, so SIGTERM stops us (and what we start)."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def run_main(main):
    """The body of `if __name__ == "__main__"`: unblocks the signals, runs the coroutine function
    `main` and exits with what it returns; a SetupFailed out of it exits 2, a CheckFailed 1, with
    the reason on stderr."""
    unblock_signals()

    async def guarded():
        try:
            return await main()
        except SetupFailed as failure:
            print(f"setup failed: {failure}", file=sys.stderr)
            return 2
        except CheckFailed as failure:
            print(f"FAILED: {failure}", file=sys.stderr)
            return 1

    sys.exit(asyncio.run(guarded()))


def add_homeserver_arguments(parser, secret=True, secret_required=True):
    """--homeserver and (with `secret`) --secret, defaulting to PARLEY_MATRIX_HOMESERVER and
    PARLEY_MATRIX_SHARED_SECRET (`scripts/synapse start` prints them); required where the
    variable is unset (--secret only with `secret_required`)."""
    def argument(flag, variable, help, required=True):
        value = os.environ.get(variable)
        parser.add_argument(flag, default=value, required=required and not value, help=f"{help} (default: ${variable})")

    argument("--homeserver", "PARLEY_MATRIX_HOMESERVER", "the homeserver's URL")
    if secret:
        argument("--secret", "PARLEY_MATRIX_SHARED_SECRET", "the homeserver's registration_shared_secret",
                 required=secret_required)


def http(homeserver, method, path, body=None, token=None, timeout=TIMEOUT):
    """One JSON request to the homeserver; the decoded answer ({} when empty). Raises
    urllib.error.HTTPError on a status other than 2xx."""
    request = urllib.request.Request(homeserver.rstrip("/") + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        data = answer.read()
    return json.loads(data) if data else {}


def register(homeserver, secret, localpart, password, admin=False):
    """Registers a user through Synapse's shared-secret admin API (nonce + HMAC-SHA1); the user id."""
    nonce = http(homeserver, "GET", "/_synapse/admin/v1/register")["nonce"]
    message = "\0".join([nonce, localpart, password, "admin" if admin else "notadmin"]).encode()
    mac = hmac.new(secret.encode(), message, hashlib.sha1).hexdigest()
    return http(homeserver, "POST", "/_synapse/admin/v1/register",
                {"nonce": nonce, "username": localpart, "password": password, "admin": admin, "mac": mac})["user_id"]


def new_account(prefix, digits=10):
    """A fresh (localpart, password): `prefix` and `digits` random hex digits, and a random password."""
    return prefix + uuid.uuid4().hex[:digits], "pw-" + uuid.uuid4().hex


def rate_limit_path(user_id):
    return f"/_synapse/admin/v1/users/{urllib.parse.quote(user_id)}/override_ratelimit"


def set_rate_limit(homeserver, admin_token, user_id, per_second=0, burst=0):
    """Overrides the message rate limit of `user_id` (0/0, the default: none); takes effect at once."""
    http(homeserver, "POST", rate_limit_path(user_id), {"messages_per_second": per_second, "burst_count": burst},
         token=admin_token)


def rate_limit(homeserver, admin_token, user_id):
    """The override in place for `user_id` ({} when none)."""
    return http(homeserver, "GET", rate_limit_path(user_id), token=admin_token)


def login(homeserver, localpart, password):
    """A password login over plain HTTP; the access token."""
    return http(homeserver, "POST", "/_matrix/client/v3/login", {
        "type": "m.login.password", "identifier": {"type": "m.id.user", "user": localpart},
        "password": password})["access_token"]


async def nio_login(client, password):
    """Logs a matrix-nio client in; SetupFailed unless it got an access token. nio's requests
    carry its own timeout (AsyncClientConfig.request_timeout, 60 s by default)."""
    answer = await client.login(password)
    if not getattr(answer, "access_token", None):
        raise SetupFailed(f"login of {client.user}: {answer}")
    return answer


def signed_by(obj, user, key_id, public_key):
    """Whether `obj` carries a valid ed25519 signature of `user`'s by `key_id` ("ed25519:…")
    whose public key is `public_key` (unpadded base64), checked with Synapse's own signedjson
    (imported here: it is in the venv of scripts/synapse only)."""
    from signedjson.key import decode_verify_key_bytes
    from signedjson.sign import SignatureVerifyException, verify_signed_json
    from unpaddedbase64 import decode_base64
    try:
        verify_signed_json(obj, user, decode_verify_key_bytes(key_id, decode_base64(public_key)))
        return True
    except (SignatureVerifyException, ValueError, KeyError, TypeError):
        return False


def media_download_url(homeserver, mxc):
    """The authenticated download URL (Matrix v1.11) of an mxc:// URI; ValueError if it is none."""
    parsed = urllib.parse.urlparse(mxc)
    if parsed.scheme != "mxc" or not parsed.netloc or len(parsed.path) < 2:
        raise ValueError(f"not an mxc:// URI: {mxc!r}")
    return "{}{}/{}/{}".format(homeserver.rstrip("/"), MEDIA_DOWNLOAD, urllib.parse.quote(parsed.netloc, safe=""),
                               urllib.parse.quote(parsed.path[1:], safe=""))


# ---- What the end-to-end scripts (matrix-e2e.py, matrix-e2ee.py) share: the parley process,
# a matrix-nio client per account, what a bot posts in a room, and the predicates on its events.

class Parley:
    """`parley run --config matrix.yaml` in the work folder, its output in a log file per start.

    With a `name` (the cluster test's several processes), its log is `parley-<name>.log` and the
    id the shell driver kills it by is in `parley-<name>.pid`; else `parley-run<N>.log` per start
    and `parley.pid`."""

    def __init__(self, binary, workdir, env, name=None):
        self.binary = binary
        self.workdir = workdir
        self.env = env
        self.name = name
        self.process = None
        self.log_path = None
        self.starts = 0
        self.pid_path = os.path.join(workdir, f"parley-{name}.pid" if name else "parley.pid")

    def start(self):
        self.starts += 1
        self.log_path = os.path.join(self.workdir, f"parley-{self.name}.log" if self.name else f"parley-run{self.starts}.log")
        out = open(self.log_path, "wb")
        self.process = subprocess.Popen([self.binary, "run", "--config", "matrix.yaml"], cwd=self.workdir, env=self.env,
                                        stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        out.close()
        # The shell driver kills it by this id if we are killed ourselves.
        with open(self.pid_path, "w") as f:
            f.write(str(self.process.pid))

    @property
    def pid(self):
        return self.process.pid

    @property
    def label(self):
        return f"parley {self.name}" if self.name else "parley"

    def alive(self):
        return self.process.poll() is None

    def lines(self):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read().splitlines()
        except OSError:
            return []

    async def wait_for_line(self, predicate, what, seconds, after=0):
        """The log lines from line `after` on that match, waited for."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = [line for line in self.lines()[after:] if predicate(line)]
            if found:
                return found
            if not self.alive():
                raise CheckFailed(f"{self.label} exited with {self.process.returncode} while waiting for {what}")
            await asyncio.sleep(0.1 if self.name else 0.2)
        raise CheckFailed(f"no {what} in {self.label}'s log within {seconds} s")

    async def wait_started(self):
        await self.wait_for_line(lambda line: " info host started" in line, "'host started' line", 60)

    def ended(self):
        """The process is gone: the driver has nothing left to kill."""
        try:
            os.remove(self.pid_path)
        except OSError:
            pass

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.ended()

    def stop(self):
        """SIGTERM, up to 15 s for a clean stop, then SIGKILL. Returns the exit code."""
        if self.process is None:
            return None
        if self.process.poll() is not None:
            self.ended()  # gone already (the driver's process group got the SIGTERM too): no id left to kill
            return self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            return None
        finally:
            self.ended()

    def tail(self, count=40):
        return "\n".join(self.lines()[-count:])


class Person:
    """One account's matrix-nio client; collects every room's timeline events (their JSON).
    matrix-nio is imported here, not at the top, so the module itself stays standard library.
    A subclass with end-to-end encryption passes its own `client` and overrides the hooks
    `after_login`, `received`, `after_sync` and `send`."""

    def __init__(self, homeserver, user_id, password, client=None):
        if client is None:
            from nio import AsyncClient
            client = AsyncClient(homeserver, user_id)
        self.client = client
        self.user_id = user_id
        self.password = password
        self.since = None
        self.events = {}  # room id → raw events in arrival order

    async def login(self):
        await nio_login(self.client, self.password)
        await self.after_login()
        await self.pump(0)

    async def after_login(self):
        pass

    async def pump(self, timeout_ms=500):
        from nio import SyncResponse
        response = await self.client.sync(timeout=timeout_ms, since=self.since,
                                          sync_filter={"room": {"timeline": {"limit": 200}}, "presence": {"types": []}})
        if not isinstance(response, SyncResponse):
            await asyncio.sleep(0.3)
            return
        self.since = response.next_batch
        for room, info in response.rooms.join.items():
            if info.timeline.limited and self.events.get(room):
                raise CheckFailed(f"{self.user_id}'s own sync of {room} was limited; raise its timeline limit")
            self.events.setdefault(room, []).extend(self.received(room, event) for event in info.timeline.events)
        await self.after_sync()

    def received(self, room, event):
        """What is kept of a timeline event (after matrix-nio has handled it): its JSON."""
        return event.source

    async def after_sync(self):
        pass

    async def send(self, room, event_type, content):
        return await self.client.room_send(room, event_type, content, tx_id=str(uuid.uuid4()))

    async def say(self, room, text):
        from nio import RoomSendResponse
        response = await self.send(room, "m.room.message", {"msgtype": "m.text", "body": text})
        if not isinstance(response, RoomSendResponse):
            raise CheckFailed(f"{self.user_id} cannot send {text!r}: {response}")
        return response.event_id

    async def create_room(self, **options):
        from nio import RoomCreateResponse
        created = await self.client.room_create(**options)
        if not isinstance(created, RoomCreateResponse):
            raise SetupFailed(f"{self.user_id} cannot create a room {options}: {created}")
        return created.room_id

    async def close(self):
        await self.client.close()


class BotView:
    """What `bot` posts in one room as `person` sees it: messages and reactions, in order."""

    def __init__(self, person, room, bot, name):
        self.person = person
        self.room = room
        self.bot = bot
        self.name = name
        self.taken = 0

    def bot_events(self):
        return [e for e in self.person.events.get(self.room, [])
                if e.get("sender") == self.bot and e.get("type") in ("m.room.message", "m.reaction")]

    def catch_up(self):
        """Passes over every bot event seen so far: `next` returns later ones only."""
        self.taken = len(self.bot_events())

    def missing(self):
        """Why an expected event may not have come, for a failure's message ('' when nothing is known)."""
        return ""

    async def next(self, what, predicate=lambda e: True, seconds=30, skip=lambda e: False):
        """The next bot event not taken yet; it must satisfy `predicate` (events `skip` accepts are passed over)."""
        deadline = time.monotonic() + seconds
        while True:
            events = self.bot_events()
            while self.taken < len(events):
                event = events[self.taken]
                self.taken += 1
                if skip(event):
                    continue
                if not predicate(event):
                    raise CheckFailed(f"{self.name}: expected {what}, got {json.dumps(event['content'], ensure_ascii=False)}")
                return event
            if time.monotonic() > deadline:
                raise CheckFailed(f"{self.name}: expected {what}: nothing within {seconds} s{self.missing()}")
            await self.person.pump(500)

    async def nothing_new(self, why, seconds=2.0):
        """No bot event arrives within `seconds`."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            await self.person.pump(300)
        events = self.bot_events()[self.taken:]
        expect(not events, f"{self.name}: expected nothing ({why}), got "
                           + "; ".join(json.dumps(e["content"], ensure_ascii=False) for e in events))

    async def wait_joined(self, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.joined_event() is not None:
                return
            await self.person.pump(500)
        raise CheckFailed(f"{self.name}: {self.bot} did not join within {seconds} s")

    def joined_event(self):
        """The bot's (first) join to the room as seen so far, or None."""
        for event in self.person.events.get(self.room, []):
            if (event.get("type") == "m.room.member" and event.get("state_key") == self.bot
                    and event["content"].get("membership") == "join"):
                return event
        return None


def body(event):
    return event.get("content", {}).get("body", "")


def msgtype(event):
    return event.get("content", {}).get("msgtype")


def is_card(name):
    return lambda e: msgtype(e) == f"chat.parley.card.{name}"


def is_text(text):
    return lambda e: msgtype(e) in ("m.text", "m.notice") and body(e) == text


def is_reaction(key, on):
    return lambda e: e.get("type") == "m.reaction" and e["content"].get("m.relates_to") == {
        "rel_type": "m.annotation", "event_id": on, "key": key}


def check_card(event, name, fields, fallback):
    content = event["content"]
    payload = content.get("chat.parley.card") or {}
    for key, value in fields.items():
        expect(payload.get(key) == value, f"{name} card field {key} is {payload.get(key)!r}, expected {value!r}")
    expect(fallback in content.get("body", ""), f"{name} card body {content.get('body')!r} lacks {fallback!r}")


def download(homeserver, token, mxc, decode=True):
    """A media file's bytes (`decode`: as text) by its mxc:// URI, with `token`'s authorization."""
    request = urllib.request.Request(media_download_url(homeserver, mxc))
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
        data = answer.read()
    return data.decode("utf-8", errors="replace") if decode else data


async def example_rooms(nina, bot):
    """The rooms matrix.yaml names, made by `nina`: #agents, #supervisors and #phone
    invite-only with `bot` invited (anyone could join a public one and act as an agent; the
    bot joins them by alias at start), #announcements public. Returns their ids in that order."""
    from nio import RoomPreset
    agents = await nina.create_room(alias="agents", name="Agents", preset=RoomPreset.private_chat, invite=[bot])
    supervisors = await nina.create_room(alias="supervisors", name="Supervisors", preset=RoomPreset.private_chat, invite=[bot])
    phone = await nina.create_room(alias="phone", name="Phone", preset=RoomPreset.private_chat, invite=[bot])
    announcements = await nina.create_room(alias="announcements", name="Announcements", preset=RoomPreset.public_chat)
    return agents, supervisors, phone, announcements


def register_accounts(homeserver, secret, passwords, admin):
    """Registers every `passwords` account (name → password), `admin` as the server's admin;
    the admin's access token. SetupFailed when the homeserver is not a fresh one."""
    import urllib.error
    try:
        for name, password in passwords.items():
            register(homeserver, secret, name, password, admin=name == admin)
        return login(homeserver, admin, passwords[admin])
    except urllib.error.HTTPError as error:
        detail = error.read().decode(errors="replace")
        if "M_USER_IN_USE" in detail:
            raise SetupFailed("the accounts exist already on this homeserver: the test needs a fresh one "
                              "(scripts/synapse start, or leave PARLEY_MATRIX_HOMESERVER unset)")
        raise SetupFailed(f"registering the accounts: {error}: {detail}")
    except (urllib.error.URLError, KeyError) as error:
        raise SetupFailed(f"registering the accounts: {error}")


def scenario_main(doc, scenario, interrupted, workdir_help="a folder with matrix.yaml, profiles.yaml and bots/"):
    """The `__main__` of an end-to-end script: signals (SIGTERM calls `interrupted`), the
    arguments --parley, --workdir and the homeserver's, then exits with `scenario(args).run()`."""
    import argparse
    unblock_signals()
    signal.signal(signal.SIGTERM, interrupted)
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parley", required=True, help="the parley binary")
    parser.add_argument("--workdir", required=True, help=workdir_help)
    add_homeserver_arguments(parser)
    args = parser.parse_args()
    sys.exit(asyncio.run(scenario(args).run()))


# ---- The example support bot (bots/support.yaml) as a customer meets it: each sends a command
# as `person` and checks the answers in `view`, a BotView of the bot in the person's room.

async def card_bob(person, view, file=True):
    """/card bob, the first message: the greeting card, bob's vCard card; the .vcf file's event
    (None without `file`: the caller looks for it)."""
    await person.say(view.room, "/card bob")
    greeting = await view.next("the greeting card", is_card("greeting"))
    check_card(greeting, "greeting", {"summary": "Welcome"}, "Hi Alice Liddell! I'm Support. Type /help.")
    vcard = await view.next("bob's vCard card", is_card("vcard"))
    check_card(vcard, "vcard", {"name": "Bob Stone"}, "Bob Stone")
    if not file:
        return None
    file = await view.next("bob's .vcf file", lambda e: msgtype(e) == "m.file")
    check_vcf_event(file)
    return file


def check_vcf_event(file):
    """The .vcf file's event: its name and type."""
    info = file["content"].get("info", {})
    expect(info.get("mimetype") == "text/vcard", f"vCard file mimetype is {info.get('mimetype')!r}")
    expect(body(file).endswith(".vcf"), f"vCard file name is {body(file)!r}")


async def docs_link(person, view):
    """/docs: the link card."""
    await person.say(view.room, "/docs")
    link = await view.next("the link card", is_card("link"))
    check_card(link, "link", {"url": "https://example.com/docs", "text": "Parley docs"}, "Parley docs")


async def thanks_heart(person, view):
    """thanks!: ❤️ on the message."""
    thanks = await person.say(view.room, "thanks!")
    await view.next("❤️ on 'thanks!'", is_reaction("❤️", thanks))


async def refund_opening(person, view):
    """/refund: 👀 on it, the reply quoting it (m.in_reply_to), the order question."""
    refund = await person.say(view.room, "/refund")
    await view.next("👀 on '/refund'", is_reaction("👀", refund))
    reply = await view.next("the quoted reply", is_text("Let's sort this out."))
    relation = reply["content"].get("m.relates_to", {}).get("m.in_reply_to", {}).get("event_id")
    expect(relation == refund, f"the reply's m.in_reply_to is {relation!r}, expected {refund}")
    await view.next("the order question", is_text("What is your order number?"))


async def ticket_card(view, number, order):
    """The ticket card of alice's refund of `order` in the agents' room (`view`); the event."""
    # The bot greeted the room when it joined: that card is passed over.
    ticket = await view.next("the ticket card", is_card("ticket"), skip=is_card("greeting"))
    check_card(ticket, "ticket", {"number": number, "note": f"Refund for order {order} from alice"},
               f"Ticket #{number} from Alice Liddell: Refund for order {order} from alice")
    return ticket
