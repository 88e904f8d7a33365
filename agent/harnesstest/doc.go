// Package harnesstest tests heapscope's Python leak-check harness
// (agent/heapscope/leakcheck.py and pytest_plugin.py, docs/harness.md)
// the way its users run it: from plain Python, under pytest with the
// plugin on PYTHONPATH, from the heapscope-agent package installed
// offline into virtual environments, and under python -m unittest, on the
// machine's Pythons. It has no Go API: its tests are a package of their
// own so that they run beside cmd/heapscope's, not after them.
package harnesstest
