# Behaves like a kernel that hangs on the device: one case passes, then no output at all.
import logging
import time

logging.basicConfig(level=logging.INFO, format="%(message)s")
logging.info("[aligned [3,128]] PASS (matched_ratio=1.000000 (req>=0.99), max_abs_error=0.000000e+00 (limit=1.000000e-01))")
time.sleep(120)
