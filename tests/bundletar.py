# SPDX-License-Identifier: GPL-2.0-or-later
"""Result bundles as the agent writes them, for the tests that make their
own: the manifest's "files" entry and the gzip'd tar, manifest.json first.

The scripts the integration tests write out import it with
    sys.path.insert(0, os.path.join(os.environ["RTLAB_TOP"], "tests"))
"""

import hashlib
import io
import json
import tarfile


def files_entry(files):
    """The manifest's "files" for FILES, a {name: bytes} dict."""
    return {n: {"size": len(b), "sha256": hashlib.sha256(b).hexdigest()}
            for n, b in files.items()}


def tgz(manifest, files, mtime=0):
    """MANIFEST (a dict) and FILES ({name: bytes}) as a gzip'd tar."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        for name, data in [("manifest.json", json.dumps(manifest).encode())] + \
                list(files.items()):
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            ti.mtime = mtime
            t.addfile(ti, io.BytesIO(data))
    return buf.getvalue()
