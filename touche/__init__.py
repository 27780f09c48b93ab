"""Touché toolkit core: JVM bootstrap, configuration, errors and the command line."""
__version__ = "0.1.0"
