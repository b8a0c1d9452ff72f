// Placeholder until the benchmark lands.
print("progress-bench: not written yet")
