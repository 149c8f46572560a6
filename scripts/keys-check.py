#!/usr/bin/env python3
"""Checks a Matrix user's published device keys with independent tools (Synapse's own
canonicaljson and signedjson), and prints what it found as JSON.

    keys-check.py --homeserver URL --token ACCESS_TOKEN --user @bot:localhost [--timeout 30]

As the user the token belongs to: `POST /keys/query` for --user, then each device's
self-signature is verified with signedjson against the device's `ed25519:<device>` key;
`POST /keys/claim` takes one `signed_curve25519` key per device, verified the same way.
Prints one JSON object on stdout:
  devices  [{device_id, curve25519, ed25519, algorithms, verified}]
  claimed  [{device_id, key_id, key, fallback, verified}]
Run with the venv's python of scripts/synapse. Exit 0 = printed, 2 = a request failed.
"""
import argparse
import json
import sys
import urllib.request

import parley_synapse as synapse


def post(args, path, body):
    request = urllib.request.Request(
        args.homeserver.rstrip("/") + path, data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": "Bearer " + args.token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=args.timeout) as answer:
        return json.load(answer)


def verified(obj, user, device, ed25519):
    return synapse.signed_by(obj, user, "ed25519:" + device, ed25519)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--homeserver", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--timeout", type=float, default=30)
    args = parser.parse_args()
    try:
        query = post(args, "/_matrix/client/v3/keys/query", {"device_keys": {args.user: []}})
        devices = []
        for device_id, obj in sorted(query.get("device_keys", {}).get(args.user, {}).items()):
            keys = obj.get("keys", {})
            ed25519 = keys.get("ed25519:" + device_id, "")
            devices.append({"device_id": device_id, "curve25519": keys.get("curve25519:" + device_id, ""),
                            "ed25519": ed25519, "algorithms": obj.get("algorithms", []),
                            "verified": obj.get("user_id") == args.user and obj.get("device_id") == device_id
                            and verified(obj, args.user, device_id, ed25519)})
        wanted = {args.user: {d["device_id"]: "signed_curve25519" for d in devices}}
        claim = post(args, "/_matrix/client/v3/keys/claim", {"one_time_keys": wanted})
        claimed = []
        for device in devices:
            for name, obj in claim.get("one_time_keys", {}).get(args.user, {}).get(device["device_id"], {}).items():
                claimed.append({"device_id": device["device_id"], "key_id": name.split(":", 1)[-1],
                                "key": obj.get("key", ""), "fallback": obj.get("fallback", False),
                                "verified": verified(obj, args.user, device["device_id"], device["ed25519"])})
    except OSError as error:
        print("keys-check: request failed: %s" % error, file=sys.stderr)
        return 2
    print(json.dumps({"devices": devices, "claimed": claimed}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
