"""The build backend of the heapscope-agent Python package (PEP 517),
written with the standard library only, so that `pip install ./agent`
and `pip wheel ./agent` work offline on every Python from 3.9 on, with
no setuptools to fetch.

It reads the [project] table of pyproject.toml (name, description,
requires-python and entry points; the version is heapscope/__init__.py's
__version__) and builds:

- a wheel of heapscope/*.py, pure Python (py3-none-any), or, when asked
  to carry the heapscope program (config setting binary=PATH, or the
  HEAPSCOPE_WHEEL_BINARY environment variable), a wheel for this
  machine's platform with the program as heapscope/bin/heapscope, where
  heapscope.leakcheck.find_binary looks for it;
- an sdist of pyproject.toml, this backend and the package.

    pip wheel --no-deps ./agent
    pip wheel --no-deps --config-settings binary=/abs/path/to/heapscope ./agent
"""

import base64
import hashlib
import io
import os
import re
import stat
import sysconfig
import tarfile
import zipfile

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGE = "heapscope"
# A fixed time for every member, so that the same sources give the same
# wheel, byte for byte (zip dates cannot be before 1980).
_EPOCH = (1980, 1, 1, 0, 0, 0)


def _project():
    """The [project] table of pyproject.toml, as a dict."""
    with open(os.path.join(_ROOT, "pyproject.toml"), "rb") as f:
        data = f.read()
    try:
        import tomllib
    except ImportError:   # before 3.11
        return _small_toml(data.decode("utf-8")).get("project", {})
    return tomllib.loads(data.decode("utf-8")).get("project", {})


def _small_toml(text):
    """Reads the part of TOML this pyproject.toml uses: [dotted.tables],
    key = "string" and key = ["string", ...] on one line, comments.
    Anything else is an error, so that a new construct in pyproject.toml
    cannot be misread before 3.11."""
    root, table = {}, None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line)
        if m:
            table = root
            for part in m.group(1).split("."):
                table = table.setdefault(part, {})
            continue
        m = re.fullmatch(r'([A-Za-z0-9_.-]+|"[^"]*")\s*=\s*(.+?)\s*(#.*)?', line)
        if not m or table is None:
            raise ValueError("pyproject.toml line %d: not understood before Python 3.11: %r" % (n, raw))
        key, value = m.group(1).strip('"'), m.group(2)
        if re.fullmatch(r'"[^"\\]*"', value):
            table[key] = value[1:-1]
        elif re.fullmatch(r'\[\s*("[^"\\]*"\s*,?\s*)*\]', value):
            table[key] = re.findall(r'"([^"\\]*)"', value)
        else:
            raise ValueError("pyproject.toml line %d: not understood before Python 3.11: %r" % (n, raw))
    return root


def _version():
    with open(os.path.join(_ROOT, _PACKAGE, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.M)
    if not m:
        raise ValueError("heapscope/__init__.py has no __version__")
    return m.group(1)


def _sources():
    """The package's modules, relative to the agent directory, sorted."""
    d = os.path.join(_ROOT, _PACKAGE)
    return sorted(_PACKAGE + "/" + n for n in os.listdir(d) if n.endswith(".py"))


def _metadata(project, version):
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + version]
    if project.get("description"):
        lines.append("Summary: " + project["description"])
    if project.get("requires-python"):
        lines.append("Requires-Python: " + project["requires-python"])
    for c in project.get("classifiers", []):
        lines.append("Classifier: " + c)
    return "\n".join(lines) + "\n"


def _entry_points(project):
    out = []
    for group, eps in sorted(project.get("entry-points", {}).items()):
        out.append("[%s]" % group)
        out.extend("%s = %s" % kv for kv in sorted(eps.items()))
        out.append("")
    return "\n".join(out)


def _dist_name(project):
    return re.sub(r"[-_.]+", "_", project["name"]).lower()


def _binary(config_settings):
    b = (config_settings or {}).get("binary") or os.environ.get("HEAPSCOPE_WHEEL_BINARY")
    if not b:
        return None
    if not (os.path.isfile(b) and os.access(b, os.X_OK)):
        raise ValueError("binary=%s: not an executable file" % b)
    return b


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _zip_add(z, name, data, mode=0o644):
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.external_attr = (stat.S_IFREG | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    version = _version()
    binary = _binary(config_settings)
    tag = "py3-none-any"
    if binary:
        tag = "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())
    dist = "%s-%s" % (_dist_name(project), version)
    info = dist + ".dist-info"
    files = []
    for rel in _sources():
        with open(os.path.join(_ROOT, rel), "rb") as f:
            files.append((rel, f.read(), 0o644))
    if binary:
        with open(binary, "rb") as f:
            files.append((_PACKAGE + "/bin/heapscope", f.read(), 0o755))
    files.append((info + "/METADATA", _metadata(project, version).encode("utf-8"), 0o644))
    files.append((info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: heapscope_build\nRoot-Is-Purelib: %s\nTag: %s\n"
                                    % ("false" if binary else "true", tag)).encode("ascii"), 0o644))
    files.append((info + "/entry_points.txt", _entry_points(project).encode("utf-8"), 0o644))
    record = [_record_line(n, d) for n, d, _ in files] + [info + "/RECORD,,"]
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode("utf-8"), 0o644))
    name = "%s-%s.whl" % (dist, tag)
    os.makedirs(wheel_directory, exist_ok=True)
    tmp = os.path.join(wheel_directory, name + ".tmp")
    with zipfile.ZipFile(tmp, "w") as z:
        for n, d, mode in files:
            _zip_add(z, n, d, mode)
    os.replace(tmp, os.path.join(wheel_directory, name))
    return name


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    version = _version()
    base = "%s-%s" % (_dist_name(project), version)
    members = ["pyproject.toml", "pybuild/heapscope_build.py"] + _sources()
    name = base + ".tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    tmp = os.path.join(sdist_directory, name + ".tmp")
    with tarfile.open(tmp, "w:gz", format=tarfile.PAX_FORMAT) as t:
        def add(rel, data):
            ti = tarfile.TarInfo(base + "/" + rel)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 315532800   # 1980-01-01
            t.addfile(ti, io.BytesIO(data))
        for rel in members:
            with open(os.path.join(_ROOT, rel), "rb") as f:
                add(rel, f.read())
        add("PKG-INFO", _metadata(project, version).encode("utf-8"))
    os.replace(tmp, os.path.join(sdist_directory, name))
    return name

