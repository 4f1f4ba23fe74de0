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
'X'." -- custom fields and the stock Hardware, OS, Severity and Priority
lists of a fresh 5.2 alike, values listed without is_active as 5.2 does;
no trailing slashes; the limits of a stock install: attachments up to
maxattachmentsize (1000 KB, published by GET /rest/parameters; HTTP 400,
code 600 beyond), comments up to 65,535 characters (HTTP 400, code 114).
Bugs are searchable by whiteboard (substring, GET /rest/bug?whiteboard=)
and take comments (POST /rest/bug/ID/comment).

Every request is logged as one JSON line to --log; decoded attachments are
written to --store/BUGID-FILE_NAME, a bug's description (comment 0) to
--store/BUGID-comment-0.txt and each later comment to BUGID-comment-N.txt.  Prints "listening on PORT" once ready.
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
ap.add_argument("--max-attachment-kb", type=int, default=1000,
                help="maxattachmentsize, KB")
ap.add_argument("--no-parameters", action="store_true",
                help="GET /rest/parameters is not answered (as before 5.0)")
ap.add_argument("--platform-values", default="All,PC,Macintosh,Other")
ap.add_argument("--severity-values",
                default="blocker,critical,major,normal,minor,trivial,"
                        "enhancement")
ap.add_argument("--fail-attachment-once", action="append", default=[],
                help="the first POST of this attachment file name fails "
                     "(HTTP 500 with an HTML page)")
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
# Stock fields of a fresh 5.2, by the name the POST uses.
STOCK = {
    "platform": ("rep_platform", "Hardware", a.platform_values.split(",")),
    "op_sys": ("op_sys", "OS", ["All", "Windows", "Mac OS", "Linux",
                                "Other"]),
    "severity": ("bug_severity", "Severity", a.severity_values.split(",")),
    "priority": ("priority", "Priority", ["Highest", "High", "Normal", "Low",
                                          "Lowest", "---"]),
}
PRODUCTS = {
    "Linux": (["Realtime", "Other"], ["unspecified"]),
    "Process Management": (["Scheduler", "Other"], ["2.5", "unspecified"]),
}
MAX_COMMENT = 65535
bugs = {}
failed_once = set()

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
        if path == "/rest/parameters" and not a.no_parameters:
            return self.reply(200, {"parameters": {
                "maxattachmentsize": str(a.max_attachment_kb),
                "defaultplatform": "", "defaultopsys": "",
                "usestatuswhiteboard": "1"}})
        if path == "/rest/product":
            found = []
            for n in query.get("names") or []:
                if n in PRODUCTS:
                    c, v = PRODUCTS[n]
                    found.append({
                        "name": n,
                        "components": [{"name": x, "is_active": True}
                                       for x in c],
                        "versions": [{"name": x, "is_active": True}
                                     for x in v]})
            return self.reply(200, {"products": found})
        if path == "/rest/bug":
            wb = (query.get("whiteboard") or [""])[0]
            found = [{"id": i, "is_open": b["is_open"],
                      "whiteboard": b["whiteboard"]}
                     for i, b in sorted(bugs.items())
                     if wb and wb in b["whiteboard"]]
            return self.reply(200, {"bugs": found})
        if path.startswith("/rest/field/bug/"):
            name = path[len("/rest/field/bug/"):]
            stock = [v for v in STOCK.values() if v[0] == name]
            if stock:
                return self.reply(200, {"fields": [{
                    "name": name, "display_name": stock[0][1], "type": 2,
                    "is_custom": False, "is_on_bug_entry": True,
                    "is_mandatory": True,
                    "values": [{"name": v, "sort_key": i}
                               for i, v in enumerate(stock[0][2])]}]})
            f = FIELDS.get(name)
            if not f:
                return self.error(400, 51, "There is no field named '%s'."
                                  % name)
            # 5.2 lists values without an is_active flag.
            return self.reply(200, {"fields": [{
                "name": name, "display_name": f["display_name"],
                "type": f["type"], "is_custom": True,
                "is_on_bug_entry": True, "is_mandatory": False,
                "values": [{"name": v, "sort_key": i}
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
                         if k not in ("data", "api_key", "description",
                                      "comment")}
        entry["description_len"] = len(body.get("description", ""))
        entry["comment_len"] = len(body.get("comment", ""))
        if "comment" in body:
            entry["comment_head"] = body["comment"][:200]
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
        if len(parts) == 5 and parts[1:3] == ["rest", "bug"] and \
                parts[4] == "comment":
            return self.add_comment(parts[3], body)
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
        if len(body.get("description", "")) > MAX_COMMENT:
            return self.too_long()
        for k, (name, display, values) in STOCK.items():
            if k in body and body[k] not in values:
                return self.error(404, 51, "There is no %s named '%s'."
                                  % (display, body[k]))
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
        bugs[bug] = {"whiteboard": body.get("whiteboard", ""),
                     "is_open": True, "comments": 1}
        with open("%s/%d-comment-0.txt" % (a.store, bug), "w") as f:
            f.write(body.get("description", ""))
        return self.reply(200, {"id": bug})

    def too_long(self):
        return self.error(400, 114, "The text you entered in the Comment "
                          "field is too long. Comments cannot be longer "
                          "than %d characters." % MAX_COMMENT)

    def add_comment(self, bug, body):
        try:
            bug_id = int(bug)
        except ValueError:
            return self.error(404, 101, "Bug #%s does not exist." % bug)
        if bug_id not in bugs:
            return self.error(404, 101, "Bug #%d does not exist." % bug_id)
        if not body.get("comment"):
            return self.error(400, 54, "You must enter a comment.")
        if len(body["comment"]) > MAX_COMMENT:
            return self.too_long()
        n = bugs[bug_id].setdefault("comments", 1)
        bugs[bug_id]["comments"] = n + 1
        with open("%s/%d-comment-%d.txt" % (a.store, bug_id, n), "w") as f:
            f.write(body["comment"])
        att = state["att"]
        state["att"] += 1
        return self.reply(201, {"id": att})

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
        if len(data) > a.max_attachment_kb * 1024:
            return self.error(400, 600, "The file you are trying to attach "
                              "is %d kilobytes (KB) in size. Attachments "
                              "cannot be more than %d KB. We recommend "
                              "that you store your attachment elsewhere "
                              "and then paste the URL to this file in "
                              "the URL field or in a comment."
                              % ((len(data) + 1023) // 1024,
                                 a.max_attachment_kb))
        if body["file_name"] in a.fail_attachment_once and \
                body["file_name"] not in failed_once:
            failed_once.add(body["file_name"])
            return self.reply(500, b"<html><body><h1>Internal Server "
                              b"Error</h1></body></html>", "text/html")
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
