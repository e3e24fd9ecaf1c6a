"""Passes on the llvm + nvvm stage (after `convert-tileas-to-llvm`)."""
