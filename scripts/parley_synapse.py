"""What the Python test scripts share: Synapse's admin API over plain HTTP (registering users
with the shared secret, lifting rate limits, logging in), a matrix-nio login, the
media-download URL, the exceptions and exit codes of a check, and the signal reset for a
Swift parent.

The scripts beside this file import it as `parley_synapse`: Python puts a script's own folder
first on sys.path, so `python scripts/x.py` finds it from any working directory. Standard
library only (matrix-nio is imported by `nio_login`'s callers, not here). Every network call
has a timeout.
"""
import asyncio
import hashlib
import hmac
import json
import os
import signal
import sys
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


def media_download_url(homeserver, mxc):
    """The authenticated download URL (Matrix v1.11) of an mxc:// URI; ValueError if it is none."""
    parsed = urllib.parse.urlparse(mxc)
    if parsed.scheme != "mxc" or not parsed.netloc or len(parsed.path) < 2:
        raise ValueError(f"not an mxc:// URI: {mxc!r}")
    return "{}{}/{}/{}".format(homeserver.rstrip("/"), MEDIA_DOWNLOAD, urllib.parse.quote(parsed.netloc, safe=""),
                               urllib.parse.quote(parsed.path[1:], safe=""))
