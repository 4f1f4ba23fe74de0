#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hold the documentation and the code to each other.

The truth about the code is what it says itself: the commands, subcommands
and flags come from the built binaries' --help, the environment variables
from the table they print (lib/envvars.c), the HTTP routes from the string
literals of the C files that serve HTTP (wherever they live), and the
variables the code reads from its getenv() calls.  The documentation is
README.md, docs/*.md and the README.md of each top-level folder.

Both ways are checked:
  docs -> code  every `rtlab CMD [SUB] --flag` invocation, RTLAB_* variable
                and `GET /path` route the docs name exists;
  make          every `make TARGET` the docs name is in `make help`, and
                every target there is named in the docs;
  code -> docs  every command, subcommand and long flag of --help appears in
                an invocation of that command in the docs, every variable of
                the table is in README's table with the same meaning and
                default, every variable read with getenv() is in the table,
                every path segment the HTTP code routes on is documented.

Prints "ok - CHECK" or one "not ok - ..." line per item, naming the item and
where it was expected; exits 1 on any failure.

  check-docs.py [--top DIR] [--rtlab BIN] [--agent BIN] [--doc FILE]...
                [--src FILE]...

--doc replaces the set of documents (repeatable), --src adds C files to the
scanned sources (repeatable): the test plants drift that way.
"""

import argparse
import glob
import os
import re
import subprocess
import sys

METHODS = r"(?:GET|POST|PUT|DELETE|HEAD|PATCH)"
# Endpoints of other services the docs talk about: Bugzilla's REST API,
# LAVA's (lava-server, docs/lava.md).
EXTERNAL_ROUTES = ("/rest/", "/api/v0.2/")
# Not the code whose getenv() calls and routes are checked: the tests (the
# docs may still name a variable only a test reads; tests/ is searched for
# it), the testcases' kernel module, build output.
SKIP_DIRS = {".git", "build", "tests", "testcases"}

failures = 0


def ok(name):
    print("ok - " + name)


def not_ok(msg):
    global failures
    failures += 1
    print("not ok - " + msg)


def report(name, problems):
    """One ok line for a clean check, else one not ok line per problem."""
    if problems:
        for p in problems:
            not_ok(p)
    else:
        ok(name)


# ---------------------------------------------------------------- binaries

def run_help(argv):
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
    except OSError as e:
        return None, str(e)
    return (p.stdout if p.returncode == 0 else None), p.stdout


class Program:
    """A binary's commands, subcommands, flags and environment, from --help."""

    def __init__(self, path, name):
        self.path = path
        self.name = name          # rtlab or rtlab-agent
        self.commands = {}        # name -> {"subs": set, "flags": set,
                                  #          "short": set}
        self.env = {}             # name -> (meaning, default or None)
        self.errors = []
        top, out = run_help([path, "--help"])
        if top is None:
            self.errors.append("%s --help failed: %s" % (name, out.strip()))
            return
        self.top_help = top
        self.env = parse_env(top)
        for cmd in parse_commands(top):
            self.commands[cmd] = self.command_help(cmd)

    def command_help(self, cmd):
        info = {"subs": set(), "flags": set(), "short": set(), "long": {}}
        text, out = run_help([self.path, cmd, "--help"])
        if text is None:
            self.errors.append("%s %s --help failed: %s" %
                               (self.name, cmd, out.strip()[:200]))
            return info
        texts = [text]
        # A subcommand's own help exists where the help says so.
        for sub in set(re.findall(r"%s %s ([a-z][a-z0-9-]*) --help" %
                                  (re.escape(self.name), cmd), text)):
            t, _ = run_help([self.path, cmd, sub, "--help"])
            if t:
                texts.append(t)
        for t in texts:
            parse_command_help(self.name, cmd, t, info)
        return info


def parse_commands(text):
    cmds, on = [], False
    for line in text.splitlines():
        if re.match(r"^commands:\s*$", line, re.I):
            on = True
            continue
        if on:
            m = re.match(r"^  ([a-z][a-z0-9-]*)\s", line)
            if not m:
                break
            cmds.append(m.group(1))
    return cmds


def parse_command_help(prog, cmd, text, info):
    syn = re.compile(r"^\s*(?:usage:\s*)?%s %s\b(.*)$" %
                     (re.escape(prog), re.escape(cmd)))
    in_usage = False
    for line in text.splitlines():
        m = syn.match(line)
        if m:
            in_usage = True
            rest = m.group(1).split()
            for tok in rest:
                words = [w for w in tok.split("|") if w]
                if tok == "|" or (words and all(
                        re.match(r"^[a-z][a-z0-9-]*$", w) for w in words)):
                    info["subs"].update(words)
                else:
                    break
        elif not line.strip():
            in_usage = False
        if in_usage:
            info["flags"].update(re.findall(r"(?<![\w-])(--[a-z][\w-]*)",
                                            line))
            info["short"].update(re.findall(r"(?<![\w-])(-[a-zA-Z])\b",
                                            line))
            continue
        m = re.match(r"^\s+(?:(-[a-zA-Z]),\s+)?(--[a-z][\w-]*)", line)
        if m:
            info["flags"].add(m.group(2))
            if m.group(1):
                info["short"].add(m.group(1))
                info["long"][m.group(1)] = m.group(2)
        m = re.match(r"^\s+(-[a-zA-Z])\s", line)
        if m:
            info["short"].add(m.group(1))


def parse_env(text):
    """The "Environment:" section of a top-level --help (lib/envvars.c)."""
    env, on, cur = {}, False, None
    entries = []
    for line in text.splitlines():
        if line.strip() == "Environment:":
            on = True
            continue
        if not on:
            continue
        m = re.match(r"^  (RTLAB_[A-Z0-9_]+)(?:\s+(.*))?$", line)
        if m:
            cur = [m.group(1), m.group(2) or ""]
            entries.append(cur)
        elif cur and re.match(r"^\s{6,}\S", line):
            cur[1] = (cur[1] + " " + line.strip()).strip()
        else:
            on = False
    for name, text in entries:
        meaning, sep, dflt = text.rpartition("; default: ")
        env[name] = (meaning, dflt) if sep else (text, None)
    return env


# ---------------------------------------------------------------- documents

# A command line: at the start of a code span or line (after a prompt or
# variable assignments), or after &&, ;, | or $(.
MAKE_INVOCATION = re.compile(
    r"(?:^|&&|;|\||\$\()\s*(?:\$\s+)?(?:[A-Z_]+=\S*\s+)*make"
    r"(?:\s+-\S+)*(?:\s+[A-Za-z_]+=\S*)*\s+([a-z][a-z0-9-]*)(?=\s|$)")
INVOCATION = re.compile(
    r"(?:^|&&|;|\||\$\()\s*(?:\$\s+)?(?:[A-Z_]+=\S*\s+)*"
    r"(?:[\w./-]*/)?(rtlab-agent|rtlab)"
    r"\s+([a-z][a-z0-9-]*)(?=\s|$)(.*)$")


class Doc:
    def __init__(self, path, rel):
        self.rel = rel
        with open(path, encoding="utf-8") as f:
            self.lines = f.read().split("\n")
        self.invocations = []   # (line, prog, cmd, rest)
        self.make_targets = []  # (line, target) of `make TARGET`
        self.spans = []         # (line, text of a code span or code line)
        self.parse()

    def add_invocations(self, lineno, text):
        for m in MAKE_INVOCATION.finditer(text):
            self.make_targets.append((lineno, m.group(1)))
        pos = 0
        while True:
            m = INVOCATION.search(text, pos)
            if not m:
                break
            self.invocations.append((lineno, m.group(1), m.group(2),
                                     m.group(3)))
            pos = m.start(3)

    def parse(self):
        fenced = False
        code = []   # [lineno, text] of the current code line, joined
        prev_blank = True
        for i, line in enumerate(self.lines, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            indented = re.match(r"^(    |\t)", line) and (
                prev_blank or code)
            if fenced or indented:
                text = re.sub(r"\s#\s.*$", "", line)
                cont = code and (code[-1][1].endswith("\\") or
                                 re.match(r"^\s+[-\[(]", text))
                if cont:
                    code[-1][1] = code[-1][1].rstrip("\\") + " " + \
                        text.strip()
                else:
                    code.append([i, text.strip()])
                prev_blank = not line.strip()
                continue
            for n, t in code:
                self.spans.append((n, t))
                self.add_invocations(n, t)
            code = []
            prev_blank = not line.strip()
            for span in re.findall(r"`([^`]+)`", line):
                span = span.replace("\\|", "|")
                self.spans.append((i, span))
                self.add_invocations(i, span)
        for n, t in code:
            self.spans.append((n, t))
            self.add_invocations(n, t)

    def text(self):
        return "\n".join(self.lines)


def invocation_parts(rest):
    """Subcommand words and flags of what follows `rtlab CMD`."""
    toks = rest.split()
    subs = []
    if toks:
        words = [w for w in toks[0].split("|") if w]
        if words and all(re.match(r"^[a-z][a-z0-9-]*$", w) for w in words):
            subs = words
    flags = []
    for tok in toks:
        if tok == "--":
            break       # `rtlab compare A... -- B...`: files follow
        flags += re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", tok)
    return subs, flags


# ---------------------------------------------------------------- sources

def c_sources(top, extra):
    files = []
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs
                         if d not in SKIP_DIRS and not d.startswith("."))
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                files.append(os.path.join(root, n))
    return files + list(extra)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def rel(top, path):
    p = os.path.relpath(path, top)
    return path if p.startswith("..") else p


def code_routes(top, files):
    """Path segments the HTTP code routes on: literals that are a path
    ("/api/v1/runs", "/runs/") and the literals compared with what follows
    one (strcmp(rest, "histogram")), in files that serve HTTP."""
    segs = {}
    for path in files:
        if not path.endswith(".c"):
            continue
        src = read(path)
        if "MHD_" not in src and "http_request" not in src:
            continue
        lit = []
        for m in re.finditer(r'"((?:[^"\\\n]|\\.)*)"', src):
            s = m.group(1)
            line = src.count("\n", 0, m.start()) + 1
            if re.match(r"^/[A-Za-z0-9._/-]*$", s):
                lit.append((s, line))
        for m in re.finditer(r'\bstrn?cmp\(\s*(\w+)\s*,\s*"([a-z][\w.-]*/?)"',
                             src):
            if m.group(1) not in ("rest", "path", "tail", "suffix"):
                continue
            line = src.count("\n", 0, m.start()) + 1
            lit.append((m.group(2), line))
        for s, line in lit:
            for seg in s.split("/"):
                if seg:
                    segs.setdefault(seg, "%s:%d" % (rel(top, path), line))
    return segs


def route_segments(path):
    path = re.sub(r"^%s\s+" % METHODS, "", path)
    path = re.sub(r"[?\[].*$", "", path)
    return [s for s in path.split("/")
            if s and s != "..." and not s.startswith("{")]


def doc_routes(docs):
    """(doc, line, route text, segments) of every route the docs name with
    its method (`GET /api/v1/runs`), and with them the other forms of the
    same table row (`/runs/{run}`, `plot.svg`)."""
    res = []
    for d in docs:
        for i, line in enumerate(d.lines, 1):
            found = [r for r in re.findall(r"\b(%s\s+/[^\s`|,)]*)" %
                                           METHODS, line)
                     if not re.sub(r"^%s\s+" % METHODS, "", r).startswith(
                         EXTERNAL_ROUTES)]
            if not found:
                continue
            for span in re.findall(r"`([^`]+)`", line):
                if re.match(r"^(/|\.\.\./)[^\s]*$", span) or \
                        re.match(r"^[\w-]+\.(png|svg|json|dat|css|html)$",
                                 span):
                    found.append(span)
            for r in found:
                res.append((d.rel, i, r, route_segments(r)))
    return res


def doc_path_segments(docs):
    """Segments of every path-like code span: what documents a route, in a
    table of pages or in prose (`/style.css`)."""
    segs = set()
    for d in docs:
        for _, span in d.spans:
            if re.match(r"^(%s\s+)?/\S*$" % METHODS, span):
                segs.update(route_segments(span))
    return segs


# ---------------------------------------------------------------- checks

def check_commands(progs, docs):
    """docs -> code: commands, subcommands, flags of every invocation."""
    p_cmd, p_sub, p_flag = [], [], []
    for d in docs:
        for line, prog, cmd, rest in d.invocations:
            where = "%s:%d" % (d.rel, line)
            pr = progs[prog]
            if cmd not in pr.commands:
                p_cmd.append("%s: '%s %s' is no command of '%s --help'" %
                             (where, prog, cmd, prog))
                continue
            info = pr.commands[cmd]
            subs, flags = invocation_parts(rest)
            if info["subs"]:
                for s in subs:
                    if s not in info["subs"]:
                        p_sub.append("%s: '%s %s %s' is no subcommand in "
                                     "'%s %s --help'" %
                                     (where, prog, cmd, s, prog, cmd))
            for fl in flags:
                known = info["flags"] if fl.startswith("--") else \
                    info["short"]
                if fl not in known and fl not in ("--help", "-h"):
                    p_flag.append("%s: '%s %s %s' is no option in "
                                  "'%s %s --help'" %
                                  (where, prog, cmd, fl, prog, cmd))
    report("docs name only commands the binaries have", p_cmd)
    report("docs name only subcommands the binaries have", p_sub)
    report("docs name only flags the commands have", p_flag)


def check_help_documented(progs, docs, doc_names):
    """code -> docs: every command, subcommand and long flag of --help."""
    seen_cmd, seen_sub, seen_flag = set(), set(), set()
    for d in docs:
        cmds = set()
        for _, prog, cmd, rest in d.invocations:
            seen_cmd.add((prog, cmd))
            cmds.add((prog, cmd))
            subs, flags = invocation_parts(rest)
            for s in subs:
                seen_sub.add((prog, cmd, s))
            for fl in flags:
                seen_flag.add((prog, cmd, fl))
        # an option table or a sentence of a document that shows the
        # command: `--keep` keeps ...
        for _, span in d.spans:
            m = re.match(r"^(--?[a-zA-Z][\w-]*)(?=[\s=]|$)", span)
            if m:
                for prog, cmd in cmds:
                    seen_flag.add((prog, cmd, m.group(1)))
    p_cmd, p_sub, p_flag = [], [], []
    for prog, pr in sorted(progs.items()):
        for cmd, info in sorted(pr.commands.items()):
            if (prog, cmd) not in seen_cmd:
                p_cmd.append("'%s %s' (from '%s --help') is in no "
                             "`%s %s ...` of %s" %
                             (prog, cmd, prog, prog, cmd, doc_names))
            for s in sorted(info["subs"]):
                if (prog, cmd, s) not in seen_sub:
                    p_sub.append("'%s %s %s' (from '%s %s --help') is in no "
                                 "`%s %s %s ...` of %s" %
                                 (prog, cmd, s, prog, cmd, prog, cmd, s,
                                  doc_names))
            short = {v: k for k, v in info["long"].items()}
            for fl in sorted(info["flags"]):
                if fl in ("--help",):
                    continue
                if (prog, cmd, fl) not in seen_flag and \
                        (prog, cmd, short.get(fl)) not in seen_flag:
                    p_flag.append("'%s %s %s' (from '%s %s --help') is in "
                                  "no `%s %s ... %s` of %s" %
                                  (prog, cmd, fl, prog, cmd, prog, cmd, fl,
                                   doc_names))
    report("every command of --help is documented", p_cmd)
    report("every subcommand of --help is documented", p_sub)
    report("every flag of --help is documented", p_flag)


def readme_env_table(readme):
    rows, on = {}, False
    for i, line in enumerate(readme.lines, 1):
        if re.match(r"^\|\s*variable\s*\|\s*meaning\s*\|\s*default\s*\|",
                    line):
            on = True
            continue
        if not on:
            continue
        if not line.startswith("|"):
            break
        if re.match(r"^\|[-|: ]+\|$", line):
            continue
        cells = [c.strip() for c in
                 re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if len(cells) != 3:
            rows[("?", i)] = None
            continue
        name = cells[0].strip("`")
        dflt = None if cells[2] in ("–", "-", "") else cells[2]
        rows[name] = (cells[1], dflt, i)
    return rows


def make_targets(top):
    text, out = run_help(["make", "-s", "-C", top, "help"])
    if text is None:
        return None, out
    return {m.group(1) for m in re.finditer(r"^  ([a-z][a-z0-9-]*)\s",
                                            text, re.M)}, None


def check_make(docs, top, doc_names):
    targets, err = make_targets(top)
    if targets is None:
        report("make help lists the targets", ["make help failed: " + err])
        return
    p, seen = [], {"help"}
    for d in docs:
        for line, t in d.make_targets:
            seen.add(t)
            if t not in targets and t != "help":
                p.append("%s:%d: 'make %s' is no target of 'make help'" %
                         (d.rel, line, t))
    report("docs name only targets make help lists", p)
    p = ["'make %s' (from 'make help') is in no `make %s` of %s" %
         (t, t, doc_names) for t in sorted(targets - seen)]
    report("every target of make help is documented", p)


def check_env(progs, docs, readme, top, files):
    table = {}
    p_help = []
    for prog, pr in sorted(progs.items()):
        for name, val in pr.env.items():
            if name in table and table[name] != val:
                p_help.append("%s reads differently in '%s --help' than in "
                              "another binary's --help" % (name, prog))
            table[name] = val
    if not table:
        p_help.append("no Environment: section in 'rtlab --help' "
                      "(lib/envvars.c)")
    report("--help prints one environment table", p_help)

    # README's table and the code's, row for row
    p = []
    rows = readme_env_table(readme) if readme else {}
    where = readme.rel if readme else "README.md"
    for name, val in sorted(table.items()):
        if name not in rows:
            p.append("%s (from --help, lib/envvars.c) is missing from the "
                     "variable table of %s" % (name, where))
            continue
        meaning, dflt, line = rows[name]
        if meaning != val[0]:
            p.append("%s:%d: %s means '%s' in the README but '%s' in "
                     "--help (lib/envvars.c)" % (where, line, name, meaning,
                                                  val[0]))
        if dflt != val[1]:
            p.append("%s:%d: %s defaults to '%s' in the README but '%s' in "
                     "--help (lib/envvars.c)" %
                     (where, line, name, dflt or "–", val[1] or "–"))
    for name in rows:
        if name not in table:
            p.append("%s: the variable table lists %s, which no --help "
                     "prints (lib/envvars.c)" % (where, name))
    report("README's environment table is the code's", p)

    # every getenv("RTLAB_...") of the code is in the table
    p = []
    read_by_code = {}
    for path in files:
        for m in re.finditer(r'getenv\(\s*"(RTLAB_[A-Z0-9_]+)"', read(path)):
            read_by_code.setdefault(m.group(1), rel(top, path))
    for name, path in sorted(read_by_code.items()):
        if name not in table:
            p.append("%s, read by %s, is not in the environment table "
                     "(lib/envvars.c, --help, README.md)" % (name, path))
    report("every variable the code reads is in the table", p)

    # every RTLAB_* the docs name is real: the table's or a test's
    tests = ""
    for path in glob.glob(os.path.join(top, "tests", "**", "*"),
                          recursive=True):
        if os.path.isfile(path) and path.endswith((".c", ".sh", ".py")):
            tests += read(path)
    p = []
    for d in docs:
        for i, line in enumerate(d.lines, 1):
            for name in re.findall(r"\b(RTLAB_[A-Z0-9_]+)\b", line):
                if name in table or name in tests:
                    continue
                p.append("%s:%d: %s is neither in the environment table "
                         "(--help) nor read by a test" % (d.rel, i, name))
    report("every variable the docs name exists", p)


def check_routes(docs, top, files, doc_names):
    code = code_routes(top, files)
    documented = doc_routes(docs)
    p = []
    if not code:
        p.append("no route literal found in any C file serving HTTP")
    for f, i, r, segs in documented:
        for s in segs:
            if s not in code:
                p.append("%s:%d: route '%s': no C file serving HTTP routes "
                         "on '%s'" % (f, i, r, s))
    report("every documented route is served", p)
    p = []
    doc_segs = {s for _, _, _, segs in documented for s in segs}
    doc_segs |= doc_path_segments(docs)
    for s, where in sorted(code.items()):
        if s not in doc_segs:
            p.append("route segment '%s' (%s) is in no documented route "
                     "(`GET /...` or `/path`) of %s" % (s, where, doc_names))
    report("every route of the code is documented", p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--top", default=os.path.dirname(here))
    ap.add_argument("--rtlab")
    ap.add_argument("--agent")
    ap.add_argument("--doc", action="append", default=[])
    ap.add_argument("--src", action="append", default=[])
    a = ap.parse_args()
    top = a.top
    build = os.environ.get("RTLAB_BUILD", os.path.join(top, "build"))
    progs = {
        "rtlab": Program(a.rtlab or os.path.join(build, "rtlab"), "rtlab"),
        "rtlab-agent": Program(a.agent or os.path.join(build, "rtlab-agent"),
                               "rtlab-agent"),
    }
    errs = [e for pr in progs.values() for e in pr.errors]
    report("the binaries answer --help", errs)

    if a.doc:
        paths = a.doc
    else:
        paths = [os.path.join(top, "README.md")]
        paths += sorted(glob.glob(os.path.join(top, "docs", "*.md")))
        paths += sorted(glob.glob(os.path.join(top, "*", "README.md")))
    docs = [Doc(p, rel(top, p)) for p in paths]
    readme = next((d for d in docs
                   if os.path.basename(d.rel) == "README.md"
                   and readme_env_table(d)), None)
    if not a.doc:
        doc_names = "README.md, docs/*.md, */README.md"
    elif len(docs) <= 3:
        doc_names = ", ".join(d.rel for d in docs)
    else:
        doc_names = "the %d documents given" % len(docs)
    files = c_sources(top, a.src)

    check_commands(progs, docs)
    check_help_documented(progs, docs, doc_names)
    check_env(progs, docs, readme, top, files)
    check_routes(docs, top, files, doc_names)
    check_make(docs, top, doc_names)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
