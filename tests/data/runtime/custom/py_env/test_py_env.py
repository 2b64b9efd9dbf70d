# Prints the device id and working directory the launcher gave it, then passes one case.
import os

print("TILE_FWK_DEVICE_ID=" + os.environ.get("TILE_FWK_DEVICE_ID", "<unset>"), flush=True)
print("CWD=" + os.getcwd(), flush=True)
print("[aligned] PASS (matched_ratio=1.000000 (req>=0.99), max_abs_error=0.000000e+00 (limit=1.000000e-01))", flush=True)
