#!/usr/bin/env python3
"""Reads the vCard file a Parley bot sent to a Matrix room with independent tools and prints it as JSON.

    vcard-check.py --homeserver URL --user @alice:localhost --password PW --room '!id:localhost' [--timeout 60]

Logs in as the user with matrix-nio, joins the room (accepting an invite; a no-op when joined),
pages back through the room until it finds the newest `m.file` event whose `info.mimetype` is
`text/vcard`, downloads the file through the authenticated media endpoint
(`GET /_matrix/client/v1/media/download/{server}/{mediaId}`, Matrix v1.11; Synapse refuses the old
unauthenticated `/_matrix/media/v3/download` for new media) and parses it with vobject.

Prints one JSON object on stdout (ASCII, `\\u` escapes):
  event     the file event: event_id, sender, body, filename, mimetype, size, url
  download  endpoint, status, content_type, filename (from Content-Disposition), octets
  text      crlf (every line ends in CRLF), longest_line_octets, lines_valid_utf8 (each physical
            line decodes on its own: no fold split a character's octets), lines
  vcard     version; fn, tel, email, title, photo, uid (every occurrence, as vobject decoded it);
            n (family, given, additional, prefix, suffix); org (the list of components)
A value vobject decoded as a list (an unescaped comma) stays a list, so it never looks right by
accident. Run with the venv's python of scripts/synapse. The whole run is bounded by --timeout;
exit 0 = printed, 1 = no vCard file or it does not parse (the reason on stderr), 2 = setup failed.
"""
import argparse
import asyncio
import email.message
import json
import time

import aiohttp
import vobject
from nio import AsyncClient, JoinResponse, MessageDirection, RoomMessagesResponse

import parley_synapse as synapse
from parley_synapse import MEDIA_DOWNLOAD, CheckFailed, SetupFailed


async def find_vcard_event(client, room, deadline):
    """The newest `m.file` event with mimetype text/vcard; polls until `deadline` (monotonic)."""
    while True:
        start = None
        for _ in range(20):  # at most 20 pages of 100 events back
            page = await client.room_messages(room, start=start, direction=MessageDirection.back, limit=100)
            if not isinstance(page, RoomMessagesResponse):
                raise SetupFailed(f"cannot read the history of {room}: {page}")
            for event in page.chunk:
                source = event.source
                content = source.get("content", {})
                if (source.get("type") == "m.room.message" and content.get("msgtype") == "m.file"
                        and content.get("info", {}).get("mimetype") == "text/vcard"):
                    return source
            if not page.chunk or not page.end:
                break
            start = page.end
        if time.monotonic() > deadline:
            raise CheckFailed(f"no m.file event with mimetype text/vcard in {room}")
        await asyncio.sleep(0.5)


async def download(homeserver, token, mxc, seconds):
    """GETs the file from the authenticated media endpoint; returns (status, headers, bytes)."""
    try:
        url = synapse.media_download_url(homeserver, mxc)
    except ValueError:
        raise CheckFailed(f"the file event's url is not an mxc:// URI: {mxc!r}")
    timeout = aiohttp.ClientTimeout(total=max(1.0, seconds))
    async with aiohttp.ClientSession(timeout=timeout) as session:
        async with session.get(url, headers={"Authorization": f"Bearer {token}"}) as answer:
            return answer.status, answer.headers, await answer.read()


def disposition_filename(header):
    """The filename of a Content-Disposition header (RFC 6266, `filename*` of RFC 5987 first)."""
    if not header:
        return None
    message = email.message.Message()
    message["Content-Disposition"] = header
    return message.get_filename()


def utf8(octets):
    try:
        octets.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def physical_lines(data):
    """What RFC 6350 §3.2 asks of the physical lines, measured on the octets as received."""
    parts = data.split(b"\n")
    ends_with_line_end = parts[-1] == b""
    if ends_with_line_end:
        parts.pop()
    return {
        "crlf": ends_with_line_end and all(part.endswith(b"\r") for part in parts),
        "longest_line_octets": max((len(part.removesuffix(b"\r")) for part in parts), default=0),
        # A fold that split a UTF-8 sequence leaves a line that does not decode on its own.
        "lines_valid_utf8": all(utf8(part) for part in parts),
        "lines": len(parts),
    }


def values(card, name):
    return [line.value for line in card.contents.get(name, [])]


def describe(card):
    """The fields of a parsed vCard as plain JSON values."""
    names = card.contents.get("n", [])
    n = None
    if names:
        value = names[0].value
        n = {part: getattr(value, part) for part in ("family", "given", "additional", "prefix", "suffix")}
    return {
        "version": values(card, "version"),
        "fn": values(card, "fn"),
        "n": n,
        "tel": values(card, "tel"),
        "email": values(card, "email"),
        "org": values(card, "org"),
        "title": values(card, "title"),
        "photo": values(card, "photo"),
        "uid": values(card, "uid"),
        "properties": sorted(card.contents),
    }


async def run(args, deadline):
    client = AsyncClient(args.homeserver, args.user)
    try:
        await synapse.nio_login(client, args.password)
        joined = await client.join(args.room)
        if not isinstance(joined, JoinResponse):
            raise SetupFailed(f"cannot join {args.room}: {joined}")
        event = await find_vcard_event(client, args.room, deadline)
        content = event["content"]
        status, headers, data = await download(args.homeserver, client.access_token, content.get("url", ""),
                                               deadline - time.monotonic())
        if status != 200:
            raise CheckFailed(f"GET {MEDIA_DOWNLOAD} answered {status}: {data[:200]!r}")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise CheckFailed(f"the vCard file is not UTF-8: {error}")
        try:
            card = vobject.readOne(text, validate=True)
        except Exception as error:
            raise CheckFailed(f"vobject cannot parse the vCard file: {error}\n{text}")
        return {
            "event": {
                "event_id": event.get("event_id"), "sender": event.get("sender"), "body": content.get("body"),
                "filename": content.get("filename"), "mimetype": content.get("info", {}).get("mimetype"),
                "size": content.get("info", {}).get("size"), "url": content.get("url"),
            },
            "download": {
                "endpoint": MEDIA_DOWNLOAD, "status": status, "content_type": headers.get("Content-Type"),
                "filename": disposition_filename(headers.get("Content-Disposition")), "octets": len(data),
            },
            "text": physical_lines(data),
            "vcard": describe(card),
        }
    finally:
        await client.close()


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    synapse.add_homeserver_arguments(parser, secret=False)
    parser.add_argument("--user", required=True, help="the full user id of the recipient")
    parser.add_argument("--password", required=True)
    parser.add_argument("--room", required=True, help="the room id the bot sent the card to")
    parser.add_argument("--timeout", type=float, default=60, help="seconds for the whole run")
    args = parser.parse_args()
    deadline = time.monotonic() + args.timeout
    try:
        result = await asyncio.wait_for(run(args, deadline), timeout=args.timeout + 5)
    except asyncio.TimeoutError:
        raise CheckFailed(f"no result within {args.timeout} s")
    print(json.dumps(result, ensure_ascii=True, sort_keys=True))
    return 0


if __name__ == "__main__":
    synapse.run_main(main)
