"""The command line, ``python -m harness COMMAND``: one module per command."""
