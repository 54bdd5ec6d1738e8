"""inplace_lab's benchmark suite (issue 9): one command, a table, JSON and RESULTS.md.

    python -m benchmarks            # full suite (make bench): results.json + RESULTS.md
    python -m benchmarks --smoke    # tiny sizes, a few seconds (CI runs this through pytest)

Every figure is a median of paired ratios measured side by side in one run (the cases are
interleaved repetition by repetition), so a noisy machine slows both sides alike.
"""
