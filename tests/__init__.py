"""The test suite. Imported before any test module, so this is where the suite lets bytecode be
written: pytest keeps the test modules it rewrites (their asserts) in __pycache__ only where it may,
and where PYTHONDONTWRITEBYTECODE is set (as in many containers) each worker would otherwise
rewrite and compile every test module again on every run, about 5 s of CPU each. The processes the
tests start keep the variable; they read the project's bytecode that tests/conftest.py compiles."""

import sys

sys.dont_write_bytecode = False
