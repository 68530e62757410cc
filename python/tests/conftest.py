import pytest

import passinfra
from passinfra import transform
from passinfra.tinyir import testing


@pytest.fixture
def mod():
    """The pass-infra tutorial's module."""
    return testing.example()


@pytest.fixture
def log_lines():
    """passinfra's log lines ("LEVEL message") while the test runs."""
    lines = []
    passinfra.set_log_sink(lambda level, message: lines.append(level + " " + message))
    yield lines
    passinfra.set_log_sink(None)


@pytest.fixture(autouse=True)
def clean_default_context():
    """Every test starts and ends with the thread's default context without instruments."""
    transform.PassContext.current().override_instruments([])
    yield
    transform.PassContext.current().override_instruments([])
