"""The `laguna` command line: one module per noun in commands/."""
