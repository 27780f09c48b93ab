"""Do the tests notice? A mutation run over every site of every module that decides a result or
guards data (``python -m bench.mutation``; docs/testing.md).

A mutant is a small mistake made at one site of a module (``sites.py``). Each is judged by the
tests that execute its lines (``lines.py``: coverage.py with one context per test), fastest
first: a mutant no test executes survives without running anything. Mutants inside a function
run in forked children of one collected pytest session, the function's code swapped for its
mutated twin (``forked.py``, as mutmut 3 does); those at module level or run while the module
loads run in a copy of the checkout (``copied.py``). Results are cached by the module's and the
tests' content (``results.py``): a rerun runs only what an edit could change. Mutants no input
can tell apart from the code are listed in ``equivalent/<module>.yaml`` with why.

Why our own runner and not mutmut: mutmut derives module names from file paths, and here
``touche.retrieval`` lives in ``retrieval/`` behind an editable install's mapping; its runner
would also fork after a test session started Java, which a forked JVM does not survive.
"""
