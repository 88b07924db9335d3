"""Private pytest glue of pytest-are-judge (imported lazily by :mod:`pytest_are_judge.plugin`)."""
