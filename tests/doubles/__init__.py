"""Test doubles shared by the test suites (a real HTTP model server, among others)."""
