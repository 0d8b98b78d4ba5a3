"""tern: Transformer translation models (MarianMT / OPUS-MT) on small devices, from Python.

    import tern
    model = tern.Model.load("models/en-de/en-de.int8.tern")
    translator = tern.Translator(model, threads=1)
    print(translator.translate_batch(["A dog runs on the beach."])[0].text)

    engine = tern.Engine(model, replicas=2, threads=1)      # many requests at once (tern/serving.py)
    future = engine.submit(["A dog runs on the beach."])    # concurrent.futures.Future

Every call that translates, loads or converts releases the GIL. Errors are tern.TernError subclasses
(tern.errors) carrying the library's message. Type stubs: tern/_tern.pyi.
"""

from . import errors
from ._tern import (
    MAX_BEAM,
    CancelToken,
    Confidence,
    Glossary,
    Hypothesis,
    Model,
    StreamEvent,
    Tokenizer,
    TranslationResult,
    Translator,
    __version__,
    convert,
    cpu_summary,
    default_threads,
    detokenize,
    peak_rss_mib,
    tokenize,
)
from .serving import Engine, Future
from .steps import generate_tokens as _generate_tokens
from .errors import (
    BusyError,
    CancelledError,
    InternalError,
    InvalidArgumentError,
    InvalidModelError,
    IoError,
    NotFoundError,
    ResourceExhaustedError,
    TernError,
    UnsupportedError,
)

__all__ = [
    "MAX_BEAM", "BusyError", "CancelToken", "CancelledError", "Confidence", "Engine", "Future", "Glossary", "Hypothesis", "InternalError",
    "InvalidArgumentError", "InvalidModelError", "IoError", "Model", "NotFoundError", "ResourceExhaustedError",
    "StreamEvent", "TernError", "Tokenizer", "TranslationResult", "Translator", "UnsupportedError", "__version__",
    "convert", "cpu_summary", "default_threads", "detokenize", "errors", "peak_rss_mib", "tokenize",
]

Translator.generate_tokens = _generate_tokens  # tern/steps.py
