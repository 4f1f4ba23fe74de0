#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in Bugzilla 5 REST server for rtlab's tests, on loopback.

It behaves like the real 5.0/5.2 servers described in the project notes:
GET /rest/version, GET /rest/field/bug/NAME, POST /rest/bug and
POST /rest/bug/ID/attachment; the API key only from the body or the query
(the X-BUGZILLA-API-KEY header is ignored); POST bodies only with
Content-Type: application/json (else the misleading code 50); errors as
{"error":true,"code":N,"message":...} with HTTP 400/401/404; a value a
select field does not offer is HTTP 404, code 51 "There is no Tree named
'X'."; no trailing slashes.

Every request is logged as one JSON line to --log; decoded attachments are
written to --store/BUGID-FILE_NAME.  Prints "listening on PORT" once ready.
"""

import argparse
import base64
import binascii
import json
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, default=0)
ap.add_argument("--api-key", default="secret-key")
ap.add_argument("--log", required=True)
ap.add_argument("--store", required=True)
ap.add_argument("--tree-values", default="---,Mainline,Fedora,PREEMPT_RT",
                help="comma-separated values of cf_tree")
ap.add_argument("--no-field", action="append", default=[],
                help="a custom field this server does not have")
ap.add_argument("--fail-bug", choices=["500", "product"],
                help="POST /rest/bug fails: HTTP 500 with an HTML page, "
                     "or Bugzilla's error for an unknown product")
ap.add_argument("--first-bug", type=int, default=1000)
a = ap.parse_args()

FIELDS = {
    "cf_tree": {"type": 2, "display_name": "Tree",
                "values": a.tree_values.split(",")},
    "cf_regression": {"type": 2, "display_name": "Regression",
                      "values": ["---", "Yes", "No"]},
    "cf_kernel_version": {"type": 1, "display_name": "Kernel Version",
                          "values": []},
    "cf_bisect_commit": {"type": 1, "display_name": "Bisected commit-id",
                         "values": []},
}
for f in a.no_field:
    FIELDS.pop(f, None)

REQUIRED = ["product", "component", "version", "summary", "op_sys",
            "platform"]
state = {"bug": a.first_bug, "att": 1}


def log(entry):
    with open(a.log, "a") as f:
        f.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, obj, ctype="application/json"):
        body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, status, code, message):
        self.reply(status, {"error": True, "code": code, "message": message,
                            "documentation": "https://bugzilla.readthedocs.org/"})

    def parts(self):
        u = urllib.parse.urlsplit(self.path)
        return u.path, urllib.parse.parse_qs(u.query)

    def do_GET(self):
        path, query = self.parts()
        log({"method": "GET", "path": path,
             "api_key_query": "api_key" in query})
        if path.endswith("/"):
            return self.error(404, 32614,
                              "A REST API resource was not found for "
                              "'GET %s'." % path)
        if path == "/rest/version":
            return self.reply(200, {"version": "5.2"})
        if path.startswith("/rest/field/bug/"):
            name = path[len("/rest/field/bug/"):]
            f = FIELDS.get(name)
            if not f:
                return self.error(400, 51, "There is no field named '%s'."
                                  % name)
            return self.reply(200, {"fields": [{
                "name": name, "display_name": f["display_name"],
                "type": f["type"], "is_custom": True,
                "is_on_bug_entry": True, "is_mandatory": False,
                "values": [{"name": v, "sort_key": i, "is_active": True}
                           for i, v in enumerate(f["values"])]}]})
        return self.error(404, 32614, "A REST API resource was not found "
                          "for 'GET %s'." % path)

    def do_POST(self):
        path, query = self.parts()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        ctype = self.headers.get("Content-Type") or ""
        entry = {"method": "POST", "path": path, "content_type": ctype,
                 "x_bugzilla_api_key": "X-BUGZILLA-API-KEY" in self.headers,
                 "api_key_query": "api_key" in query}
        # Without JSON the body is ignored: the misleading code 50.
        if not ctype.startswith("application/json"):
            log(entry)
            return self.error(400, 50, "You must select/enter a OS.")
        try:
            body = json.loads(raw)
        except ValueError:
            log(entry)
            return self.error(400, 32000, "Could not parse the JSON body")
        entry["api_key_body"] = "api_key" in body
        entry["body"] = {k: v for k, v in body.items()
                         if k not in ("data", "api_key", "description")}
        entry["description_len"] = len(body.get("description", ""))
        log(entry)
        key = body.get("api_key") or (query.get("api_key") or [None])[0]
        if key is None:
            return self.error(401, 410, "You must log in before using this "
                              "part of Bugzilla.")
        if key != a.api_key:
            return self.error(400, 306, "The API key you specified is "
                              "invalid. Please check that you typed it "
                              "correctly.")
        if path.endswith("/"):
            return self.error(404, 32614, "A REST API resource was not "
                              "found for 'POST %s'." % path)
        if path == "/rest/bug":
            return self.create_bug(body)
        parts = path.split("/")
        if len(parts) == 5 and parts[1:3] == ["rest", "bug"] and \
                parts[4] == "attachment":
            return self.add_attachment(parts[3], body)
        return self.error(404, 32614, "A REST API resource was not found "
                          "for 'POST %s'." % path)

    def create_bug(self, body):
        if a.fail_bug == "500":
            return self.reply(500, b"<html><body>Internal Server Error"
                              b"</body></html>", "text/html")
        if a.fail_bug == "product":
            return self.error(400, 51, "There is no Product named '%s'."
                              % body.get("product"))
        for f in REQUIRED:
            if not body.get(f):
                return self.error(400, 50, "You must select/enter a %s." % f)
        for k, v in body.items():
            if not k.startswith("cf_"):
                continue
            f = FIELDS.get(k)
            if not f:
                return self.error(400, 51, "There is no field named '%s'."
                                  % k)
            if f["values"] and v not in f["values"]:
                return self.error(404, 51, "There is no %s named '%s'."
                                  % (f["display_name"], v))
        bug = state["bug"]
        state["bug"] += 1
        return self.reply(200, {"id": bug})

    def add_attachment(self, bug, body):
        try:
            bug_id = int(bug)
        except ValueError:
            return self.error(404, 101, "Bug #%s does not exist." % bug)
        if bug_id < a.first_bug or bug_id >= state["bug"]:
            return self.error(404, 101, "Bug #%d does not exist." % bug_id)
        if body.get("ids") != [bug_id]:
            return self.error(400, 32000, "ids must be [%d]" % bug_id)
        for f in ("data", "file_name", "summary", "content_type"):
            if not body.get(f):
                return self.error(400, 600, "You must enter a %s." % f)
        if body.get("is_patch") not in (False, 0):
            return self.error(400, 600, "is_patch must be false here")
        try:
            data = base64.b64decode(body["data"], validate=True)
        except (binascii.Error, ValueError):
            return self.error(400, 600, "The attachment data is not valid "
                              "base64.")
        name = "%d-%s" % (bug_id, body["file_name"].replace("/", "_"))
        with open("%s/%s" % (a.store, name), "wb") as f:
            f.write(data)
        att = state["att"]
        state["att"] += 1
        return self.reply(201, {"ids": [att]})


srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
print("listening on %d" % srv.server_address[1], flush=True)
try:
    srv.serve_forever()
except KeyboardInterrupt:
    pass
sys.exit(0)
