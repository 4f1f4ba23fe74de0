# SPDX-License-Identifier: GPL-2.0-or-later
#
# A mail and webhook sink on loopback for the farm's tests: every SMTP
# message lands in DIR/mail-N.eml, every webhook POST body in
# DIR/hook-N.json.  Prints "smtp PORT http PORT" once both listen.
import asyncore, http.server, os, smtpd, sys, threading, warnings

warnings.filterwarnings("ignore")
out = sys.argv[1]
count = {"mail": 0, "hook": 0}


def save(kind, ext, data):
    count[kind] += 1
    path = os.path.join(out, "%s-%d.%s" % (kind, count[kind], ext))
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.rename(path + ".tmp", path)


class Sink(smtpd.SMTPServer):
    def process_message(self, peer, mailfrom, rcpttos, data, **kw):
        save("mail", "eml", data if isinstance(data, bytes) else data.encode())


class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        save("hook", "json", self.rfile.read(n))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *a):
        pass


smtp = Sink(("127.0.0.1", 0), None, decode_data=False)
web = http.server.HTTPServer(("127.0.0.1", 0), Hook)
threading.Thread(target=web.serve_forever, daemon=True).start()
print("smtp %d http %d" % (smtp.socket.getsockname()[1], web.server_port),
      flush=True)
asyncore.loop()
