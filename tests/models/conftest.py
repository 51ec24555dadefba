import pytest
from models_support import load


@pytest.fixture
def fixture_json():
    return load
