"""What the tests share besides ``conftest``: real servers, real hosts, a browser, the hook runner, the fixtures."""
