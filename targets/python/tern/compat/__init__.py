"""Drop-in shims for code written against other translation runtimes (tern.compat.ctranslate2)."""
