"""Prints how many hpgraph-vs-python-graphblas combinations the graphblas tests checked."""


def pytest_terminal_summary(terminalreporter):
    from tests.graphblas._helpers import COUNT

    if COUNT["combinations"]:
        terminalreporter.write_line(
            f"graphblas differential checks: {COUNT['combinations']} combinations vs python-graphblas")
