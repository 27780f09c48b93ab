"""Touché toolkit core: JVM bootstrap, configuration, errors and the command line."""


def __getattr__(name: str) -> str:
    # The version has one source, pyproject.toml, read from the installed package's metadata; on
    # first use only, so that importing the toolkit stays as quick as before.
    if name == "__version__":
        from importlib.metadata import version
        return version("touche-toolkit")
    raise AttributeError(f"module 'touche' has no attribute {name!r}")
